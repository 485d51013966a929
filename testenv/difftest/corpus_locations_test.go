// This file holds the location-matching and rewrite-module scenarios:
// location precedence ("=", "^~", "~", "~*", nested, longest prefix,
// regex order), rewrite with each flag, with and without args and the
// trailing-"?" rule, and return in all its forms.

package difftest

import (
	"fmt"
	"strings"
)

const precedenceHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    location = / { return 200 "exact root\n"; }
    location / { return 200 "prefix / uri=$uri\n"; }
    location /docs/ { return 200 "prefix /docs/\n"; }
    location /docs/api/ { return 200 "prefix /docs/api/\n"; }
    location = /docs/exact { return 200 "exact /docs/exact\n"; }
    location /docs/exact { return 200 "prefix /docs/exact\n"; }
    location ^~ /static/ { return 200 "noregex /static/\n"; }
    location ^~ /static/sub/ { return 200 "noregex /static/sub/\n"; }
    location /a { return 200 "prefix /a\n"; }
    location /ab { return 200 "prefix /ab\n"; }
    location /abc/ { return 200 "prefix /abc/\n"; }
    location /images/ {
        location ~ \.gif$ { return 200 "nested regex gif\n"; }
        location /images/deep/ { return 200 "nested prefix /images/deep/\n"; }
        return 200 "prefix /images/\n";
    }
    location ^~ /assets/ {
        location ~ \.png$ { return 200 "nested regex under ^~ png\n"; }
        return 200 "noregex /assets/\n";
    }
    location ~ ^/nest/(?<rest>.*)$ {
        location ~ \.html$ { return 200 "nested regex html rest=$rest\n"; }
        return 200 "regex nest rest=$rest\n";
    }
    location ~ \.(png|js)$ { return 200 "regex png|js ext=$1\n"; }
    location ~* \.PNG$ { return 200 "caseless regex PNG\n"; }
    location ~* \.txt$ { return 200 "caseless regex txt\n"; }
    location ~ ^/docs/.*\.txt$ { return 200 "never: an earlier regex wins\n"; }
    location ~ ^/order/(first|second) { return 200 "regex order 1 $1\n"; }
    location ~ ^/order/second { return 200 "regex order 2\n"; }
    location ~ "^/quant/\d{2}$" { return 200 "quantifier\n"; }
    location /CaSe/ { return 200 "prefix /CaSe/\n"; }
}
`

var _ = addScenario(scenario{
	name: "precedence",
	http: precedenceHTTP,
	cases: []reqCase{
		get("exact_root", "/"),
		get("root_args", "/?a=1"),
		get("prefix_root", "/index.html"),
		get("docs_prefix", "/docs/"),
		get("docs_longer_prefix", "/docs/api/x"),
		get("docs_no_slash", "/docs"),
		get("exact_wins", "/docs/exact"),
		get("exact_not_prefix", "/docs/exactly"),
		get("exact_with_args", "/docs/exact?x=y"),
		get("regex_beats_prefix", "/docs/guide.txt"),
		get("regex_beats_longer_prefix", "/docs/api/file.txt"),
		get("noregex_stops", "/static/app.js"),
		get("noregex_longest", "/static/sub/x.png"),
		get("noregex_dir", "/static/"),
		get("longest_a", "/a"),
		get("longest_ab", "/ab"),
		get("longest_abc_noslash", "/abc"),
		get("longest_abc_slash", "/abc/x"),
		get("longest_abcd", "/abcd"),
		get("nested_regex", "/images/x.gif"),
		get("nested_prefix_then_regex", "/images/deep/x.gif"),
		get("nested_prefix", "/images/deep/x"),
		get("nested_outer_regex", "/images/pic.png"),
		get("nested_plain", "/images/x"),
		get("noregex_nested_regex", "/assets/a.png"),
		get("noregex_nested_none", "/assets/a.js"),
		get("regex_named_capture", "/nest/a/b"),
		get("regex_nested_regex", "/nest/page.html"),
		get("regex_capture", "/x/y.js"),
		get("regex_case_sensitive_miss", "/x/Y.PNG"),
		get("caseless_txt", "/A.TXT"),
		get("regex_order_first", "/order/first"),
		get("regex_order_second", "/order/second"),
		get("regex_quantifier", "/quant/12"),
		get("regex_quantifier_miss", "/quant/123"),
		get("prefix_case_sensitive", "/case/x"),
		get("prefix_case_match", "/CaSe/x"),
		get("encoded_prefix", "/%64ocs/api/"),
		get("dotdot_into_prefix", "/x/../docs/exact"),
	},
})

// allPrintable is every printable ASCII byte but "/", percent-encoded:
// a capture of it shows which bytes each rewrite form escapes.
var allPrintable = func() string {
	var b strings.Builder
	for c := ' '; c <= '~'; c++ {
		if c != '/' {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}()

const rewriteHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    rewrite ^/old/(.*)$ /new/$1 permanent;
    rewrite ^/tmp/(.*)$ /target/$1 redirect;
    rewrite ^/srv-last/(.*)$ /show/$1 last;
    rewrite ^/with-args/(.*)$ /show/$1?x=1 last;
    rewrite ^/drop-args/(.*)$ /show/$1? last;
    rewrite ^/redir-args/(.*)$ /target/$1?y=2 redirect;
    rewrite ^/redir-drop/(.*)$ /target/$1? redirect;
    rewrite ^/abs/(.*)$ http://example.com/$1 permanent;
    rewrite ^/implicit/(.*)$ https://example.org/$1;
    rewrite ^/chain1/(.*)$ /chain2/$1;
    rewrite ^/chain2/(.*)$ /show/chained-$1 last;
    rewrite ^/empty-args/(.*)$ /show/$1?;

    location /show/ {
        return 200 "show uri=$uri args=$args request_uri=$request_uri is_args=$is_args\n";
    }
    location /loc-break/ {
        rewrite ^/loc-break/(.*)$ /dir/$1 break;
        return 200 "not reached\n";
    }
    location /loc-last/ {
        rewrite ^/loc-last/(.*)$ /show/$1 last;
        return 200 "not reached\n";
    }
    location /loc-noflag/ {
        rewrite ^/loc-noflag/(.*)$ /show/noflag-$1;
        return 200 "return after rewrite uri=$uri\n";
    }
    location /loop/ {
        rewrite ^/loop/(.*)$ /loop/$1 last;
    }
    location /enc/ {
        rewrite ^/enc/(.*)$ /show/$1 last;
    }
    location /enc-args/ {
        rewrite ^/enc-args/(.*)$ /show/x?v=$1 last;
    }
    location /enc-redirect/ {
        rewrite ^/enc-redirect/(.*)$ /target/$1 redirect;
    }
    location /cap/ {
        rewrite ^/cap/(\w+)/(\w+)$ /show/$2/$1 last;
    }
    location /args-var/ {
        rewrite ^ /show/args?orig=$args last;
    }
    location /nomatch/ {
        rewrite ^/other/ /show/ last;
        return 200 "no rewrite matched uri=$uri\n";
    }
    location /break-dir/ {
        rewrite ^ /noindex/ break;
    }
    location /set-args/ {
        set $args "replaced=1";
        rewrite ^ /show/set last;
    }

    location = /r/code { return 403; }
    location = /r/text { return 200 "hello $uri $arg_a\n"; }
    location = /r/200 { return 200; }
    location = /r/204 { return 204; }
    location = /r/204text { return 204 "ignored"; }
    location = /r/url { return http://example.com/x?$args; }
    location = /r/301 { return 301 /target; }
    location = /r/301abs { return 301 https://example.com$request_uri; }
    location = /r/302 { return 302 /t?a=$arg_a; }
    location = /r/303 { return 303 /see; }
    location = /r/307 { return 307 /t; }
    location = /r/308 { return 308 http://example.com/p; }
    location = /r/301empty { return 301; }
    location = /r/404text { return 404 "custom not found\n"; }
    location = /r/500 { return 500; }
    location = /r/503text { return 503 "down\n"; }
    location = /r/444 { return 444; }
    location = /r/418 { return 418; }
    location = /r/599 { return 599 "odd code\n"; }
    location = /r/json.json { return 200 '{"ok":true}'; }
    location = /r/var { return 200 "$request_method $scheme :$server_port $request_uri $args\n"; }
    location = /r/html.html { return 200 "<b>typed by extension</b>"; }
    location = /r/relative { absolute_redirect off; return 302 /rel-target; }
    location = /r/noport { port_in_redirect off; return 302 /np; }
    location = /r/sname { server_name_in_redirect on; return 302 /sn; }
    location /noabs/ { absolute_redirect off; alias {{ROOT}}/; }
}
`

var _ = addScenario(scenario{
	name: "rewrite",
	http: rewriteHTTP,
	cases: []reqCase{
		get("permanent", "/old/page"),
		get("permanent_args", "/old/page?a=1&b=2"),
		get("redirect", "/tmp/x"),
		get("redirect_args", "/tmp/x?q=1"),
		get("server_last", "/srv-last/a/b"),
		get("server_last_args", "/srv-last/a?k=v"),
		get("args_added", "/with-args/p"),
		get("args_appended", "/with-args/p?orig=1"),
		get("trailing_q_drops", "/drop-args/p?orig=1"),
		get("redirect_args_appended", "/redir-args/p?orig=1"),
		get("redirect_args_only", "/redir-args/p"),
		get("redirect_trailing_q", "/redir-drop/p?orig=1"),
		get("absolute_permanent", "/abs/x/y?z=1"),
		get("implicit_redirect", "/implicit/x?z=1"),
		get("chain", "/chain1/abc"),
		get("chain_args", "/chain1/abc?q=1"),
		get("empty_args_noflag", "/empty-args/x?drop=me"),
		get("loc_break", "/loc-break/page.html"),
		get("loc_break_missing", "/loc-break/missing.html"),
		get("loc_last", "/loc-last/z?a=1"),
		get("loc_noflag", "/loc-noflag/y"),
		get("loop", "/loop/x"),
		get("encoded_capture", "/enc/a%20b"),
		get("encoded_capture_plus", "/enc/a+b"),
		get("encoded_capture_question", "/enc/a%3Fb?c=d"),
		get("encoded_capture_all_ascii", "/enc/"+allPrintable),
		get("encoded_capture_args_all_ascii", "/enc-args/"+allPrintable),
		get("encoded_capture_redirect_all_ascii", "/enc-redirect/"+allPrintable),
		get("encoded_capture_redirect_utf8", "/enc-redirect/caf%C3%A9"),
		get("encoded_capture_args", "/enc-args/a%20b"),
		get("encoded_capture_args_amp", "/enc-args/a%26b"),
		get("plain_capture_args", "/enc-args/plain"),
		get("encoded_capture_redirect", "/enc-redirect/a%20b"),
		get("encoded_capture_redirect_args", "/enc-redirect/a%3Fb?c=d"),
		get("two_captures", "/cap/one/two"),
		get("args_variable", "/args-var/?a=1&b=2"),
		get("args_with_question", "/show/x?a=1?b=2"),
		get("args_encoded_kept", "/show/x?a=%41+b"),
		get("no_match", "/nomatch/x"),
		get("break_to_dir", "/break-dir/"),
		get("set_args", "/set-args/?old=1"),
		get("return_code", "/r/code"),
		get("return_text", "/r/text?a=x"),
		get("return_200_empty", "/r/200"),
		get("return_204", "/r/204"),
		get("return_204_text", "/r/204text"),
		get("return_url", "/r/url?u=1"),
		get("return_301_relative", "/r/301"),
		get("return_301_absolute", "/r/301abs?x=1"),
		get("return_302_args", "/r/302?a=9"),
		get("return_303", "/r/303"),
		get("return_307", "/r/307"),
		get("return_308", "/r/308"),
		get("return_301_no_url", "/r/301empty"),
		get("return_404_text", "/r/404text"),
		get("return_500", "/r/500"),
		get("return_503_text", "/r/503text"),
		get("return_444", "/r/444"),
		get("return_418", "/r/418"),
		get("return_599_text", "/r/599"),
		get("return_json_type", "/r/json.json"),
		get("return_vars", "/r/var?x=1"),
		get("return_html_type", "/r/html.html"),
		head("return_text_head", "/r/text"),
		head("return_301_head", "/r/301"),
		post("return_post", "POST", "/r/text", "body"),
		get("absolute_redirect_off", "/r/relative"),
		get("port_in_redirect_off", "/r/noport"),
		get("server_name_in_redirect", "/r/sname", "Host: other.test"),
		get("host_in_redirect", "/r/301", "Host: other.test:81"),
		get("dir_redirect_relative", "/noabs/dir?x=1"),
		raw("redirect_http10_no_host", "GET /r/301 HTTP/1.0\n\n"),
	},
})

// redirectArgsHTTP: which arguments an internal redirect carries. nginx
// splits try_files' fallback, error_page's URI and X-Accel-Redirect at "?"
// and gives the target only what follows it (nothing without a "?"),
// while index keeps the request's arguments and its name whole, "?"
// included (Drupal's `try_files $uri /index.php;`, Nextcloud's
// `index index.php index.html /index.php$request_uri;`).
const redirectArgsHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    location /tf/ { try_files $uri /target; }
    location /tfa/ { try_files $uri /target?x=1; }
    location /tfv/ { try_files $uri /target?$args; }
    location /ep/ { error_page 404 /target; }
    location /epa/ { error_page 404 /target?y=2; }
    location /epv/ { error_page 404 /target$is_args$args; }
    location /ix/ { index /target$request_uri; }
    location /dir/ { index /target; }
    location /target { return 200 "uri=$uri args=$args\n"; }
}
`

var _ = addScenario(scenario{
	name: "redirect_args",
	http: redirectArgsHTTP,
	cases: cases([]reqCase{
		get("try_files_plain", "/tf/x?a=b"),
		get("try_files_own_args", "/tfa/x?a=b"),
		get("try_files_args_var", "/tfv/x?a=b"),
		get("error_page_plain", "/ep/x?a=b"),
		get("error_page_own_args", "/epa/x?a=b"),
		get("error_page_vars", "/epv/x?a=b"),
		get("index_request_uri", "/ix/?a=b"),
		get("index_plain", "/dir/?a=b"),
	}),
})

// autoRedirectHTTP: a request for the name of a proxy_pass or
// fastcgi_pass location without its final "/" is answered with a 301 to
// the name (nginx's auto_redirect), before regex locations are tried,
// unless a location is named the URI itself; an "if" block's proxy_pass
// does not count.
const autoRedirectHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    location / { return 200 "prefix / uri=$uri\n"; }
    location /api/ { proxy_pass http://{{BACKEND}}/echo/; }
    location = /exact/ { proxy_pass http://{{BACKEND}}/echo/; }
    location ^~ /php/ { include {{FASTCGI_PARAMS}}; fastcgi_pass {{FPM}}; }
    location /named/ { proxy_pass http://{{BACKEND}}/echo/; }
    location /named { return 200 "prefix /named\n"; }
    location = /exactname { return 200 "exact /exactname\n"; }
    location /exactname/ { proxy_pass http://{{BACKEND}}/echo/; }
    location ~ ^/re { return 200 "regex ^/re\n"; }
    location /re/ { proxy_pass http://{{BACKEND}}/echo/; }
    location "/sp ace/" { proxy_pass http://{{BACKEND}}/echo/; }
    location /nest/ {
        location /nest/in/ { proxy_pass http://{{BACKEND}}/echo/; }
        return 200 "prefix /nest/\n";
    }
    location /ifpass/ {
        if ($arg_p) { proxy_pass http://{{BACKEND}}; }
        return 200 "prefix /ifpass/\n";
    }
    location /plain/ { return 200 "prefix /plain/\n"; }
    location /err/ {
        error_page 302 /api;
        return 302 "first";
    }
}
`

var _ = addScenario(scenario{
	name: "auto_redirect",
	http: autoRedirectHTTP,
	cases: []reqCase{
		get("prefix", "/api"),
		get("prefix_args", "/api?a=b&c"),
		head("prefix_head", "/api"),
		post("prefix_post", "POST", "/api", "x=1"),
		get("exact", "/exact"),
		get("noregex_fastcgi", "/php"),
		get("named_uri_wins", "/named"),
		get("exact_uri_wins", "/exactname"),
		get("before_regex", "/re"),
		get("escaped_name", "/sp%20ace"),
		get("nested", "/nest/in"),
		get("if_block_does_not_count", "/ifpass"),
		get("not_passing", "/plain"),
		get("slash_itself_passes", "/api/x"),
		get("longer_is_no_redirect", "/apix"),
		get("error_page_to_auto_redirect", "/err/"),
	},
})
