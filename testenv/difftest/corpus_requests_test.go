// This file holds the scenarios about the request itself: methods,
// directories, traversal attempts and odd paths (with merge_slashes on and
// off), Host handling and server{} selection by name (exact, *.wild, .dot,
// wild.*, regexps with captures, default_server).

package difftest

import (
	"fmt"
	"strings"
)

const requestsHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    location = /exact/page { return 200 "exact uri=$uri\n"; }
    location /echo/ { return 200 "uri=$uri request_uri=$request_uri args=$args\n"; }
    location /xff/ { return 200 "xff=$http_x_forwarded_for\n"; }
    location /small-body/ { client_max_body_size 10; alias {{ROOT}}/; }
    location /small-body-return/ { client_max_body_size 10; return 200 "returned\n"; }
    location /denied/ { deny all; alias {{ROOT}}/; }
    location /allowed/ { allow 127.0.0.1; deny all; alias {{ROOT}}/; }
    location /denied-page/ { deny all; error_page 403 /errors/403.html; }
    location /no-keepalive/ { keepalive_timeout 0; alias {{ROOT}}/; }
    location /tokens-off/ { server_tokens off; alias {{ROOT}}/; }
}

server {
    listen {{LISTEN}};
    server_name noms.test;
    root {{ROOT}};
    merge_slashes off;

    location = /exact/page { return 200 "noms exact uri=$uri\n"; }
    location /echo/ { return 200 "noms uri=$uri\n"; }
}
`

// noMergeHTTP has merge_slashes off in its default server.
const noMergeHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    merge_slashes off;

    location = /exact/page { return 200 "exact uri=$uri\n"; }
    location /echo/ { return 200 "uri=$uri\n"; }
}
`

var _ = addScenario(scenario{
	name: "requests",
	http: requestsHTTP,
	cases: []reqCase{
		// methods
		head("head_file", "/hello.txt"),
		head("head_missing", "/missing.txt"),
		head("head_dir_redirect", "/dir"),
		post("post_file", "POST", "/hello.txt", "a=1"),
		post("post_missing", "POST", "/missing.txt", "a=1"),
		post("post_dir_redirect", "POST", "/dir", "a=1"),
		post("post_dir_index", "POST", "/dir/", "a=1"),
		post("put_file", "PUT", "/hello.txt", "x"),
		post("put_dir", "PUT", "/dir/", "x"),
		req("delete_file", "DELETE", "/hello.txt"),
		req("options_file", "OPTIONS", "/hello.txt"),
		req("options_star", "OPTIONS", "*"),
		req("patch_file", "PATCH", "/hello.txt"),
		req("trace", "TRACE", "/hello.txt"),
		req("trace_return", "TRACE", "/echo/x"),
		req("trace_exact", "TRACE", "/exact/page"),
		req("unknown_method", "FOO", "/hello.txt"),
		req("lowercase_method", "get", "/hello.txt"),
		// directories
		get("dir_index", "/dir/"),
		get("dir_redirect", "/dir"),
		get("dir_redirect_args", "/dir?x=1&y=2"),
		get("dir_redirect_encoded", "/d%69r"),
		get("dir_sub_no_index", "/dir/sub/"),
		get("dir_no_index", "/noindex/"),
		get("dir_empty", "/empty/"),
		get("dir_missing", "/missing/"),
		get("dir_file_as_dir", "/hello.txt/"),
		get("file_under_file", "/hello.txt/x"),
		get("hidden_file", "/.hidden"),
		get("index_html_direct", "/dir/index.html"),
		// traversal and odd paths
		get("dotdot_root", "/../secret.txt"),
		get("dotdot_deep", "/dir/../../secret.txt"),
		get("dotdot_inside", "/dir/../hello.txt"),
		get("dot_segment", "/dir/./page.html"),
		get("dotdot_encoded", "/%2e%2e/secret.txt"),
		get("dotdot_encoded_mixed", "/.%2e/secret.txt"),
		get("dotdot_encoded_slash", "/a/..%2f..%2fsecret.txt"),
		get("dotdot_encoded_inside", "/dir/..%2fhello.txt"),
		get("dotdot_end", "/dir/.."),
		get("dot_end", "/dir/."),
		get("nul_encoded", "/hello.txt%00.html"),
		get("encoded_slash", "/dir%2Fpage.html"),
		get("encoded_letters", "/%68ello.txt"),
		get("bad_percent", "/hello%zz.txt"),
		get("truncated_percent", "/hello.txt%2"),
		get("double_slash", "//hello.txt"),
		get("double_slash_exact", "/exact//page"),
		get("triple_slash_echo", "/echo///a//b?x=1"),
		get("backslash", "/dir\\page.html"),
		get("space_encoded", "/with%20space.html"),
		get("percent_file", "/100%25.html"),
		get("plus_file", "/a+b.html"),
		get("plus_encoded", "/a%2Bb.html"),
		get("unicode_file", "/%C3%BCn%C3%AFcode.html"),
		get("unicode_raw", "/ünïcode.html"),
		get("query_only_dotdot", "/hello.txt?../../x"),
		get("fragment", "/hello.txt#frag"),
		get("fragment_before_args", "/echo/a#b?c"),
		get("fragment_after_args", "/echo/a?b#c"),
		get("fragment_encoded", "/echo/a%23b"),
		get("fragment_after_dotdot", "/echo/x/..#y"),
		get("echo_encoded", "/echo/a%20b%3Fc?d=%20e"),
		get("no_merge_other_server_double_slash", "//exact/page", "Host: noms.test"),
		get("no_merge_other_server_echo", "/echo//a", "Host: noms.test"),
		// limits, access, connection
		post("body_too_large", "POST", "/small-body/hello.txt", "01234567890123456789"),
		post("body_small_enough", "POST", "/small-body/hello.txt", "0123"),
		post("body_too_large_before_return", "POST", "/small-body-return/x", "01234567890123456789"),
		get("deny_all", "/denied/hello.txt"),
		get("allow_loopback", "/allowed/hello.txt"),
		get("deny_with_error_page", "/denied-page/x"),
		get("keepalive_off", "/no-keepalive/hello.txt"),
		get10("http10_keepalive", "/hello.txt", "Connection: keep-alive"),
		get10("http10_plain", "/hello.txt"),
		get("http11_close", "/hello.txt", "Connection: close"),
		get("http11_close_404", "/missing", "Connection: close"),
		get("http11_keepalive_404", "/missing"),
		post("post_with_expect", "POST", "/echo/x", "abc", "Expect: 100-continue"),
		get("server_tokens_off_page", "/tokens-off/missing"),
		get("long_uri", "/"+strings.Repeat("a", 9000)),
		get("long_header", "/hello.txt", "X-Long: "+strings.Repeat("b", 9000)),
		get("very_long_uri", "/"+strings.Repeat("a", 40000)),
		// nginx answers 414 and drains the rest of the request before it
		// closes, so no reset destroys the answer (issue 20).
		get("huge_uri", "/"+strings.Repeat("a", 100<<10)),
		get("long_uri_long_header", "/"+strings.Repeat("a", 20000), "X-Long: "+strings.Repeat("b", 20000)),
		get("very_long_header", "/hello.txt", "X-Long: "+strings.Repeat("b", 40000)),
		// a header line of exactly one buffer with its CRLF, and one more
		get("header_line_at_buffer", "/hello.txt", "X-Long: "+strings.Repeat("b", 8192-len("X-Long: ")-2)),
		get("header_line_over_buffer", "/hello.txt", "X-Long: "+strings.Repeat("b", 8192-len("X-Long: ")-1)),
		// a request line of exactly one buffer ending in a bare LF
		lf("lf_request_line_at_buffer", "GET /"+strings.Repeat("a", 8192-len("GET / HTTP/1.0\n"))+" HTTP/1.0\n\n"),
		lf("lf_request_line_over_buffer", "GET /"+strings.Repeat("a", 8193-len("GET / HTTP/1.0\n"))+" HTTP/1.0\n\n"),
		get("many_headers", "/hello.txt", manyHeaders(100)...),
		get("headers_at_max", "/hello.txt", shortHeaders(999)...),
		get("headers_over_max", "/hello.txt", shortHeaders(1000)...),
		// header names (issue 20): a byte <= 0x20 or DEL is a 400, a line
		// that starts with a space (obs-fold) too; other invalid names are
		// dropped, as $http_x_forwarded_for shows.
		get("header_name_space", "/echo/x", "X Forwarded For: 6.6.6.6"),
		get("header_name_space_host", "/echo/x", "Ho st: x"),
		get("header_name_tab", "/echo/x", "X\tY: 1"),
		get("header_name_del", "/echo/x", "X\x7fY: 1"),
		get("header_folded", "/echo/x", "X-A: a", " b"),
		get("header_folded_tab", "/echo/x", "X-A: a", "\tb"),
		get("header_name_dot_dropped", "/xff/x", "X.Forwarded-For: 6.6.6.6"),
		get("header_name_underscore_dropped", "/xff/x", "X_Forwarded_For: 6.6.6.6"),
		get("header_name_at", "/echo/x", "X@Y: 1").with(refused400(docNameBytes)),
		get("header_name_8bit", "/echo/x", "X\x80Y: 1").with(refused400(docNameBytes)),
		// a bare CR (issue 20): nginx refuses one at once, where edge's
		// engine would wait for the line's LF
		reqCase{name: "bare_cr_blank_line", raw: "GET /hello.txt HTTP/1.1\r\nHost: localhost\r\n\r\r"},
		reqCase{name: "bare_cr_value", raw: "GET /hello.txt HTTP/1.1\r\nHost: localhost\r\nX-A: a\rb"},
		reqCase{name: "bare_cr_request_line", raw: "GET /hello.txt HTTP/1.1\rHost: localhost"},
		reqCase{name: "bare_cr_value_complete", raw: "GET /hello.txt HTTP/1.1\r\nHost: localhost\r\nX-A: a\rb\r\n\r\n"},
		reqCase{name: "cr_cr_lf", raw: "GET /hello.txt HTTP/1.1\r\nHost: localhost\r\r\n\r\n"}.with(refused400(docHeadControl)),
		get("header_value_control", "/hello.txt", "X-A: a\x01b").with(refused400(docHeadControl)),
		// bare LF line ends (RFC 9112 section 2.2; issue 14): nginx takes
		// them, in any mix with CRLF; a body keeps its bytes as sent
		lf("lf_http10", "GET /hello.txt HTTP/1.0\n\n"),
		lf("lf_http11", "GET /echo/x HTTP/1.1\nHost: localhost\nConnection: close\n\n"),
		lf("lf_mixed", "GET /echo/x HTTP/1.1\r\nHost: localhost\nX-A: 1\r\nConnection: close\n\r\n"),
		lf("lf_crlf_blank", "GET /echo/x HTTP/1.1\nHost: localhost\nConnection: close\r\n\n"),
		lf("lf_empty_lines_first", "\n\r\n\nGET /hello.txt HTTP/1.0\n\n"),
		lf("lf_post_body", "POST /echo/x HTTP/1.1\nHost: localhost\nContent-Length: 5\nConnection: close\n\na\nb\n\n"),
		lf("lf_chunked", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\nConnection: close\n\n3\r\nabc\r\n0\r\n\r\n"),
		lf("lf_header_value", "GET /xff/x HTTP/1.1\nHost: localhost\nX-Forwarded-For: 1.2.3.4\nConnection: close\n\n"),
		lf("lf_folded", "GET /echo/x HTTP/1.1\nHost: localhost\nX-A: a\n b\n\n"),
		lf("lf_bare_cr", "GET /echo/x HTTP/1.1\nHost: localhost\nX-A: a\rb\n\n"),
		// request framing (RFC 9112 6.1-6.3; ngx_http_process_request_header):
		// chunked alone or nothing; both framings at once are a 400, another
		// coding a 501
		raw("te_and_cl", "POST /echo/x HTTP/1.1\nHost: localhost\nContent-Length: 5\nTransfer-Encoding: chunked\n\n0\n\n"),
		raw("cl_and_te", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\nContent-Length: 0\n\n0\n\n"),
		raw("te_identity", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: identity\nContent-Length: 5\n\nhello"),
		raw("te_identity_get", "GET /hello.txt HTTP/1.1\nHost: localhost\nTransfer-Encoding: identity\n\n"),
		raw("te_gzip", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: gzip\n\n").with(codingList400),
		raw("te_chunked_case", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding:  Chunked \nConnection: close\n\n3\nabc\n0\n\n"),
		raw("te_twice", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\nTransfer-Encoding: chunked\n\n0\n\n"),
		raw("te_http10", "POST /echo/x HTTP/1.0\nHost: localhost\nTransfer-Encoding: chunked\n\n0\n\n"),
		raw("te_list", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: gzip, chunked\n\n0\n\n").with(codingList400),
		raw("te_empty", "POST /echo/x HTTP/1.1\nHost: localhost\nTransfer-Encoding: \n\n").with(codingList400),
		// Host handling
		raw("http11_no_host", "GET /hello.txt HTTP/1.1\n\n"),
		raw("http10_no_host", "GET /hello.txt HTTP/1.0\n\n"),
		raw("http10_empty_host", "GET /hello.txt HTTP/1.0\nHost:\n\n"),
		raw("http11_empty_host", "GET /hello.txt HTTP/1.1\nHost: \n\n"),
		get("host_with_port", "/echo/x", "Host: localhost:8080"),
		get("host_trailing_dot", "/echo/x", "Host: localhost."),
		get("host_upper", "/echo/x", "Host: LOCALHOST"),
		get("host_slash", "/echo/x", "Host: bad/host"),
		get("host_dotdot", "/echo/x", "Host: a..b"),
		get("host_only_dot", "/echo/x", "Host: ."),
		get("host_ipv6", "/echo/x", "Host: [::1]:80"),
		get("host_ipv6_unclosed", "/echo/x", "Host: [::1").with(refused400(docHostChars)),
		// IPvFuture literals (RFC 3986 3.2.2), which fasthttp refuses as
		// IPv6 addresses (http1head.go's servableAuthority).
		get("host_ipvfuture", "/echo/x", "Host: [v1.fe80::a+b]:80").with(closesAfter(docHostChars)),
		get("host_ipvfuture_all_symbols", "/echo/x", "Host: [v0123456789aBcDeF.!$&'()*+,;=-._~AbCdEfGhIjKlMnOpQrStUvWxYz0123456789:]").with(closesAfter(docHostChars)),
		raw("absolute_form_ipvfuture", "GET http://[v1.x:y]/echo/x HTTP/1.1\nHost: localhost\n\n").with(closesAfter(docHostChars)),
		raw("host_ipvfuture_http10", "GET /echo/x HTTP/1.0\nHost: [v7.a]\n\n"),
		post("host_ipvfuture_body", "POST", "/echo/x", "ab", "Host: [v1.x]").with(refused400(docHostChars)),
		get("host_ipvfuture_bad_hex", "/echo/x", "Host: [vg.x]").with(refused400(docHostChars)),
		get("host_underscore", "/echo/x", "Host: my_host"),
		get("host_backslash", "/echo/x", `Host: a\b`).with(refused400(docHostChars)),
		raw("host_twice", "GET /echo/x HTTP/1.1\nHost: localhost\nHost: other\n\n"),
		raw("absolute_form", "GET http://localhost/echo/abs?q=1 HTTP/1.1\nHost: ignored.test\n\n"),
		raw("absolute_form_port", "GET http://localhost:9999/echo/abs HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_no_path", "GET http://localhost HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_https", "GET https://localhost/echo/s HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_other_server", "GET http://noms.test//exact/page HTTP/1.1\nHost: localhost\n\n"),
		// nginx's grammar for the authority (issue 20): userinfo would
		// make the host "u"
		raw("absolute_form_userinfo", "GET http://u:p@evil.example/echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_user", "GET http://u@localhost/echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_empty_host", "GET http:///echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_underscore_host", "GET http://my_host/echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_empty_port", "GET http://localhost:/echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_ipv6", "GET http://[::1]:80/echo/x HTTP/1.1\nHost: localhost\n\n"),
		raw("absolute_form_query_only", "GET http://localhost?x=1 HTTP/1.1\nHost: localhost\n\n"),
		raw("bad_target", "GET hello.txt HTTP/1.1\nHost: localhost\n\n"),
		raw("http09_style", "GET /hello.txt\n\n").with(http09Refused),
		raw("http2_version_on_h1", "GET /hello.txt HTTP/2.0\nHost: localhost\n\n"),
		raw("http_version_9", "GET /hello.txt HTTP/9.9\nHost: localhost\n\n"),
		raw("header_no_colon", "GET /hello.txt HTTP/1.1\nHost: localhost\nBadHeader\n\n").with(refused400(docHeaderLine)),
	},
})

var _ = addScenario(scenario{
	name: "merge_slashes_off",
	http: noMergeHTTP,
	cases: []reqCase{
		get("double_slash_file", "//hello.txt"),
		get("double_slash_exact", "/exact//page"),
		get("single_slash_exact", "/exact/page"),
		get("echo", "/echo//a///b"),
		get("dotdot_with_double", "/echo//../x"),
		get("dotdot_climb", "//../secret.txt"),
	},
})

// maxHeadersHTTP sets max_headers per server (issue 20): the default
// server's counts up to the Host line, the named server's after it.
const maxHeadersHTTP = `
max_headers 8;
server {
    listen {{LISTEN}};
    server_name localhost;
    max_headers 5;
    return 200 "small\n";
}
server {
    listen {{LISTEN}};
    server_name big.test;
    return 200 "big\n";
}
server {
    listen {{LISTEN}};
    server_name under.test;
    underscores_in_headers on;
    max_headers 5;
    return 200 "under\n";
}
`

var _ = addScenario(scenario{
	name: "max_headers",
	http: maxHeadersHTTP,
	cases: []reqCase{
		get("at_limit", "/", shortHeaders(4)...),
		get("over_limit", "/", shortHeaders(5)...),
		get("invalid_not_counted", "/", append(shortHeaders(4), "X.A: 1", "X_B: 1", "X.D: 1")...),
		get("http_level", "/", append([]string{"Host: big.test"}, shortHeaders(7)...)...),
		get("http_level_over", "/", append([]string{"Host: big.test"}, shortHeaders(8)...)...),
		get("host_late", "/", append(shortHeaders(6), "Host: big.test")...),
		get("host_late_at_default_limit", "/", append(shortHeaders(4), "Host: big.test", "X-A: 1", "X-B: 1")...),
		get("underscores_counted", "/", append([]string{"Host: under.test"}, "X_A: 1", "X_B: 1", "X_C: 1", "X_D: 1", "X_E: 1")...),
		raw("absolute_form_server", "GET http://big.test/ HTTP/1.1\nHost: localhost\nA: 1\nB: 1\nC: 1\nD: 1\nE: 1\nF: 1\n\n"),
		raw("no_host_http10", "GET / HTTP/1.0\nA: 1\nB: 1\nC: 1\nD: 1\nE: 1\nF: 1\n\n"),
	},
})

const serverNamesHTTP = `
server {
    listen {{LISTEN}};
    server_name first.test;
    return 200 "first server $host\n";
}
server {
    listen {{LISTEN}} default_server;
    server_name dflt.test;
    return 200 "default_server host=$host server_name=$server_name\n";
}
server {
    listen {{LISTEN}};
    server_name example.com www.example.com;
    return 200 "exact host=$host server_name=$server_name\n";
}
server {
    listen {{LISTEN}};
    server_name *.example.com;
    return 200 "wild prefix host=$host\n";
}
server {
    listen {{LISTEN}};
    server_name *.sub.example.com;
    return 200 "longer wild prefix host=$host\n";
}
server {
    listen {{LISTEN}};
    server_name .dot.test;
    return 200 "dot host=$host\n";
}
server {
    listen {{LISTEN}};
    server_name www.example.*;
    return 200 "wild suffix host=$host\n";
}
server {
    listen {{LISTEN}};
    server_name ~^(?<sub>[a-z]+)\.regex\.test$;
    return 200 "regex sub=$sub one=$1\n";
}
server {
    listen {{LISTEN}};
    server_name ~^api(\d+)\.;
    return 200 "regex2 n=$1\n";
}
server {
    listen {{LISTEN}};
    server_name "";
    return 200 "empty name host=[$host]\n";
}
`

// host is get("/") with a Host header.
func host(name, h string) reqCase { return get(name, "/", "Host: "+h) }

var _ = addScenario(scenario{
	name: "server_names",
	http: serverNamesHTTP,
	cases: []reqCase{
		host("first_by_name", "first.test"),
		host("default_server_by_name", "dflt.test"),
		host("unknown_goes_default", "unknown.test"),
		host("exact", "example.com"),
		host("exact_second_name", "www.example.com"),
		host("exact_upper", "EXAMPLE.COM"),
		host("exact_trailing_dot", "example.com."),
		host("exact_port", "example.com:8080"),
		host("wild_prefix", "a.example.com"),
		host("wild_prefix_deep", "a.b.example.com"),
		host("wild_prefix_longest", "x.sub.example.com"),
		host("wild_prefix_base_no", "sub.example.com"),
		host("dot_base", "dot.test"),
		host("dot_sub", "x.dot.test"),
		host("wild_suffix", "www.example.org"),
		host("wild_suffix_deep", "www.example.co.uk"),
		host("regex_named", "foo.regex.test"),
		host("regex_no_match_digits", "foo1.regex.test"),
		host("regex_numbered", "api12.anything"),
		raw("http10_no_host_empty_name", "GET / HTTP/1.0\n\n"),
		raw("absolute_form_selects", "GET http://a.example.com/ HTTP/1.1\nHost: dflt.test\n\n"),
	},
})

// shortHeaders makes n distinct short header lines: enough of them to pass
// max_headers fit the header buffers.
func shortHeaders(n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = fmt.Sprintf("X-%d: v", i)
	}
	return h
}

// manyHeaders makes n distinct header lines.
func manyHeaders(n int) []string {
	h := make([]string, n)
	for i := range h {
		h[i] = fmt.Sprintf("X-H%03d: %s", i, strings.Repeat("v", 40))
	}
	return h
}
