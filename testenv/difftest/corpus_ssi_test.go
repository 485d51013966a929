// This file holds the SSI scenario: pages under ssi/ run every command
// nginx's ssi module has (include virtual/file/set/stub/wait, echo with
// its encodings and default, set, config, if/elif/else with regex
// captures, block), nested includes and a cycle cut at 50 subrequests,
// the errors nginx reports in place (and silently), ssi_types,
// ssi_last_modified, HEAD and conditional requests, and subrequests that
// reach proxy_pass and a PHP script over FastCGI.

package difftest

import "strings"

// ssiFiles are the scenario's pages, added to the docroot.
var ssiFiles = map[string]string{
	"ssi/basic.html": `<p>basic</p>uri=<!--#echo var="uri" -->|none=<!--#echo var="nonexistent_var" -->|` +
		`default=<!--#echo var="http_x_absent" default="dflt" -->|empty=<!--#echo var="arg_none" default="" -->|` +
		`args=<!--#echo var="args" -->|ent=<!--#echo var="http_x_t" -->|` +
		`none=<!--#echo var="http_x_t" encoding="none" -->|url=<!--#echo var="http_x_t" encoding="url" -->|` +
		`sticky=<!--#echo var="http_x_t" -->|ru=<!--#echo var="request_uri" encoding="entity" -->|end` + "\n",
	"ssi/part.html":  `<b>part <!--#echo var="uri" --> of <!--#echo var="request_uri" --></b>`,
	"ssi/part.txt":   "plain part\n",
	"ssi/empty.html": "",
	"ssi/include.html": `[<!--#include virtual="/ssi/part.txt" -->][<!--#include virtual="part.html" -->]` +
		`[<!--#include file="part.html?a=1" -->][<!--#include virtual="/ssi/missing.html" -->]` +
		`[<!--#include virtual="/ssi/$arg_f" -->]` + "\n",
	"ssi/set.html": `<!--#set var="v" value="x${uri}-y" --><!--#echo var="v" -->|` +
		`<!--#set var="w" value='a\"b\$c\d' --><!--#echo var="w" encoding="none" -->|` +
		`<!--#set var="uri" value="shadowed" --><!--#echo var="uri" -->|` +
		`<!--#include virtual="/ssi/part.txt" set="p" -->p=<!--#echo var="p" -->|` +
		`<!--#include virtual="/ssi/missing.html" set="m" -->m=<!--#echo var="m" default="unset" -->|` +
		`<!--#include virtual="/ssi/part.html" set="P" -->P=<!--#echo var="p" encoding="none" -->|end` + "\n",
	"ssi/if.html": `<!--#if expr="$arg_a" -->A<!--#elif expr="$arg_b = x" -->B<!--#elif expr="$arg_c != y" -->C<!--#else -->D<!--#endif -->|` +
		`<!--#if expr="$uri = /\/ssi\/(i)(f)\.html/" -->m:<!--#echo var="1" --><!--#echo var="2" -->:<!--#echo var="0" --><!--#endif -->|` +
		`<!--#if expr="$uri = /(?<nm>[a-z]+)\.html$/" -->named:<!--#echo var="nm" --><!--#endif -->|` +
		`<!--#if expr="$uri != /nomatch/" -->neg<!--#endif -->|` +
		`<!--#if expr="$arg_a = \/x" -->slash<!--#else -->noslash<!--#endif -->|` +
		`<!--#if expr="$arg_a" --><!--#bogus --><!--#else -->skipped-bogus<!--#endif -->|end` + "\n",
	"ssi/config.html": `<!--#config errmsg="[ERR]" --><!--#bogus -->|<!--#echo -->|<!--#config timefmt="%Y" -->` +
		`year=<!--#echo var="date_gmt" -->|<!--#config timefmt="%s" --><!--#if expr="$date_local = /^[0-9]+$/" -->epoch<!--#endif -->|end` + "\n",
	"ssi/errors.html": `1<!--#echo var="x" x="y" -->2<!--#include -->3<!--#include virtual="/a" file="/b" -->` +
		`4<!--#echo var=x -->5<!--#echo var="a"b -->6<!--#if expr="x" --><!--#if expr="y" --><!--#endif -->` +
		`7<!--#else -->8<!--#include virtual="/ssi/../x" -->9<!--#abcdefghijabcdefghijabcdefghijabc -->` +
		`10<!--#echo var="a" var="b" -->11<!--#include virtual="/x" set="a" stub="b" -->` +
		`12<!--#include virtual="/x" stub="nosuch" -->13<!--#include file="/x" wait="yes" -->14<!--#set var="a" -->` +
		`15<!--#echo var="a" --x-->16<!--#echo var="$" -->17<!--#set var="a" value="${broken" -->18<!--#if expr="$a ~ b" --><!--#endif -->end` + "\n",
	"ssi/comments.html": `<!-- plain comment --> <!--x <!- <!--#echo var="uri" -->< <<!--#echo var="uri"-->` +
		`<!--#echo	var = 'q' --> &lt;<!--#  echo var="uri" -->|<!--#echo var="uri" ---->|tail<!`,
	"ssi/stub.html": `<!--#block name="one" -->STUB<!--#echo var="uri" -->!<!--#endblock -->` +
		`[<!--#include virtual="/ssi/missing.html" stub="one" -->][<!--#include virtual="/ssi/empty.html" stub="one" -->]` +
		`[<!--#include virtual="/ssi/part.txt" stub="one" -->]end` + "\n",
	"ssi/wait.html": `[<!--#include virtual="/ssi/part.txt" wait="yes" -->][<!--#include virtual="/ssi/part.txt" wait="no" -->]` +
		`[<!--#include virtual="/ssi/part.txt" wait="maybe" -->]end` + "\n",
	"ssi/recurse.html": `(<!--#include virtual="/ssi/recurse.html" -->)`,
	"ssi/close.html":   `before[<!--#include virtual="/ssiclose" -->]after` + "\n",
	"ssi/closelate.html": strings.Repeat("long text before the include\n", 100) +
		`[<!--#include virtual="/ssiclose" -->]after` + "\n",
	"ssi/nested.html":   `n[<!--#include virtual="/ssi/nested2.html" -->]`,
	"ssi/nested2.html":  `n2[<!--#include virtual="/ssi/part.html" -->]`,
	"ssi/bigset.html":   `before<!--#include virtual="/page.html" set="big" -->after` + "\n",
	"ssi/proxy.html":    `[<!--#include virtual="/ssiproxy/echo/a b?x=1" -->]` + "\n",
	"ssi/proxyset.html": `<!--#include virtual="/ssiproxy/echo/set" set="e" -->[<!--#echo var="e" encoding="none" -->]` + "\n",
	"ssi/php.html":      `[<!--#include virtual="/ssiphp/info.php?q=sub" -->]` + "\n",
	"ssi/redirects.html": `[<!--#include virtual="/dir" -->][<!--#include virtual="/ssiredirect" -->]` +
		`[<!--#include virtual="/ssierr/missing.html" -->][<!--#include virtual="/ssiret" -->]end` + "\n",
	"ssi/vars.html": `<!--#set var="f" value="part" --><!--#include virtual="/ssi/${f}.txt" -->` +
		`<!--#include virtual="/ssiargs?a=$arg_a&b=2" -->` + "\n",
	"ssi/cookies.html": `[<!--#echo var="cookie_a" -->][<!--#echo var="cookie_b" -->][<!--#echo var="cookie_c" -->]` +
		`[<!--#echo var="sent_http_content_type" -->][<!--#echo var="sent_http_x_none" -->][<!--#echo var="upstream_http_x" -->]` + "\n",
	"ssi/cmd.txt": `text <!--#echo var="uri" -->` + "\n",
	"ssi/lm.html": `lm <!--#echo var="uri" -->` + "\n",
	"ssi/date.html": `<!--#if expr="$date_gmt = /^[A-Z][a-z]+day, [0-3][0-9]-[A-Z][a-z][a-z]-20[0-9][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9] GMT\$/" -->gmt-ok<!--#endif -->|` +
		`<!--#config timefmt="%a %b %e %j %y %C %p %u %w %%" --><!--#if expr="$date_local = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 123][0-9] [0-9]{3} [0-9]{2} 20 [AP]M [1-7] [0-6] %\$/" -->local-ok<!--#endif -->|end` + "\n",
	"ssi/inc.php": `<?php echo '[<!--#include virtual="/ssiphp/info.php?q=sub" -->]';` + "\n",
	"ssi/cmd.php": `<?php echo '<p><!--#echo var="uri" --> <!--#echo var="request_method" --> <!--#include virtual="/ssi/part.txt" --></p>';` + "\n",
}

const ssiHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    location /ssi/ {
        ssi on;
    }
    location /silent/ {
        alias {{ROOT}}/ssi/;
        ssi on;
        ssi_silent_errors on;
    }
    location /types/ {
        alias {{ROOT}}/ssi/;
        ssi on;
        ssi_types text/plain;
    }
    location /lastmod/ {
        alias {{ROOT}}/ssi/;
        ssi on;
        ssi_last_modified on;
    }
    location /gzip/ {
        alias {{ROOT}}/ssi/;
        ssi on;
        gzip on;
        gzip_min_length 1;
    }
    location /ssioff/ {
        alias {{ROOT}}/ssi/;
    }
    location /ssiproxy/ {
        proxy_pass http://{{BACKEND}}/;
    }
    location ~ ^/ssiphp/(.+\.php)$ {
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME {{ROOT}}/$1;
        include {{FASTCGI_PARAMS}};
    }
    location ~ ^/ssiphpon/(.+\.php)$ {
        ssi on;
        fastcgi_pass {{FPM}};
        fastcgi_param SCRIPT_FILENAME {{ROOT}}/ssi/$1;
        include {{FASTCGI_PARAMS}};
    }
    location /ssiproxied/ {
        ssi on;
        ssi_types text/plain;
        proxy_pass http://{{BACKEND}}/;
    }
    location = /ssiredirect {
        return 302 /elsewhere;
    }
    location /ssierr/ {
        error_page 404 /errors/404.html;
    }
    location = /ssiargs {
        return 200 "args=$args uri=$uri is_args=$is_args a=$arg_a";
    }
    location = /ssiclose {
        return 444;
    }
    location = /ssiret {
        ssi on;
        default_type text/html;
        return 200 '<!--#echo var="uri" --> returned';
    }
}
`

var _ = addScenario(scenario{
	name: "ssi",
	http: ssiHTTP,
	cases: cases(
		[]reqCase{
			get("echo", "/ssi/basic.html?z=1", "X-T: <a href=\"x y\">&#'%</a>!$()*+,-./:;=?@[\\]^_`{|}~"),
			get("echo_no_args", "/ssi/basic.html"),
			get("echo_empty_values", "/ssi/basic.html?arg_none=&none=", "X-T:", "X-Absent: a"),
			get("gzip_after_ssi", "/gzip/basic.html", "Accept-Encoding: gzip", "X-T: <gz>"),
			get10("echo_http10", "/ssi/basic.html?a=1"),
			head("head", "/ssi/basic.html"),
			get("not_modified_first", "/ssi/basic.html", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
			get("include", "/ssi/include.html?f=part.txt"),
			get("include_missing_var", "/ssi/include.html"),
			get("set", "/ssi/set.html"),
			get("if_a", "/ssi/if.html?a=1"),
			get("if_b", "/ssi/if.html?b=x"),
			get("if_c", "/ssi/if.html?c=z"),
			get("if_else", "/ssi/if.html?c=y"),
			get("if_slash", "/ssi/if.html?a=/x"),
			get("config", "/ssi/config.html"),
			get("errors", "/ssi/errors.html"),
			get("errors_silent", "/silent/errors.html"),
			get("comments", "/ssi/comments.html?q=v"),
			get("stub", "/ssi/stub.html"),
			get("wait", "/ssi/wait.html"),
			get("nested", "/ssi/nested.html"),
			get("cycle", "/ssi/recurse.html"),
			// A 444 in a subrequest ends the main request: nothing was out
			// yet in the first, 2.9 KB in the second.
			get("subrequest_444", "/ssi/close.html"),
			get("subrequest_444_after_output", "/ssi/closelate.html"),
			get("set_too_big", "/ssi/bigset.html"),
			get("types_plain_processed", "/types/cmd.txt"),
			get("types_html_always", "/types/part.html"),
			get("types_plain_default", "/ssi/cmd.txt"),
			get("last_modified_on", "/lastmod/lm.html"),
			get("last_modified_off", "/ssi/lm.html"),
			get("ssi_off", "/ssioff/basic.html"),
			get("not_found_page", "/ssi/nothere.html"),
			get("return_text", "/ssiret"),
			get("subrequest_proxy", "/ssi/proxy.html", "X-Test: parent"),
			get("subrequest_proxy_set", "/ssi/proxyset.html"),
			get("relative_dir", "/silent/include.html?f=part.txt"),
			get("date_formats", "/ssi/date.html"),
			get("cookies_and_sent_headers", "/ssi/cookies.html", "Cookie: a=1; b=", "Cookie: x=2"),
			get("subrequest_redirects_and_error_page", "/ssi/redirects.html"),
			get("subrequest_uri_from_variables", "/ssi/vars.html?a=x%20y"),
			get("proxied_response_processed", "/ssiproxied/echo/x", `X-Ssi: <!--#echo var="uri" --> <!--#include virtual="/ssi/part.txt" -->`),
		},
		viaPHP(
			get("subrequest_fastcgi", "/ssi/php.html?q=parent", "X-Test: parent"),
			get("fastcgi_response_processed", "/ssiphpon/cmd.php?x=1"),
			post("post_page_includes_php", "POST", "/ssiphpon/inc.php", "a=1&b=2", "Content-Type: application/x-www-form-urlencoded"),
		),
	),
})
