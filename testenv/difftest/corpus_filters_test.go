// This file holds the response-filter scenarios: gzip (types, min_length,
// Accept-Encoding forms including q=0, Via with gzip_proxied, gzip_vary,
// HTTP/1.0, HEAD), byte ranges (single, suffix, open, multipart,
// unsatisfiable, If-Range) and conditional requests (If-Modified-Since,
// If-None-Match, If-Match, If-Unmodified-Since), over files kept in memory
// by edge and over one it sends from disk.

package difftest

const gzipHTTP = `
gzip on;
gzip_types text/css application/javascript application/json text/plain;
gzip_min_length 1000;
gzip_vary on;

server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    location / { }
    location /g10/ { gzip_http_version 1.0; alias {{ROOT}}/; }
    location /proxied-any/ { gzip_proxied any; alias {{ROOT}}/; }
    location /proxied-expired/ { gzip_proxied expired; expires 1h; alias {{ROOT}}/; }
    location /proxied-nocache/ { gzip_proxied no-cache; add_header Cache-Control no-cache; alias {{ROOT}}/; }
    location /proxied-auth/ { gzip_proxied auth; alias {{ROOT}}/; }
    location /proxied-nolm/ { gzip_proxied no_last_modified; alias {{ROOT}}/; }
    location /off/ { gzip off; alias {{ROOT}}/; }
    location /novary/ { gzip_vary off; alias {{ROOT}}/; }
    location /star/ { gzip_types *; alias {{ROOT}}/; }
    location /min20/ { gzip_min_length 20; alias {{ROOT}}/; }
    location /disable/ { gzip_disable "curl|Wget"; alias {{ROOT}}/; }
    location /msie/ { gzip_disable msie6; alias {{ROOT}}/; }
    location = /text { return 200 "a returned text body long enough to be compressed by gzip when the minimum length allows it, repeated: a returned text body long enough to be compressed by gzip when the minimum length allows it, and again a returned text body long enough to be compressed by gzip when the minimum length allows it; one more time a returned text body long enough to be compressed by gzip when the minimum length allows it, plus padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding padding\n"; }
}
`

// ae is an Accept-Encoding header line.
func ae(v string) string { return "Accept-Encoding: " + v }

var _ = addScenario(scenario{
	name: "gzip",
	http: gzipHTTP,
	cases: []reqCase{
		get("html_always", "/page.html", ae("gzip")),
		get("css", "/style.css", ae("gzip")),
		get("js", "/app.js", ae("gzip, deflate, br")),
		get("text_100k", "/text100k.txt", ae("gzip")),
		get("text_small", "/small.txt", ae("gzip")),
		get("json_small", "/data.json", ae("gzip")),
		get("png_not_listed", "/logo.png", ae("gzip")),
		get("big_bin_not_listed", "/big.bin", ae("gzip")),
		get("no_accept_encoding", "/style.css"),
		get("deflate_only", "/style.css", ae("deflate")),
		get("q_zero", "/style.css", ae("gzip;q=0")),
		get("q_zero_spaces", "/style.css", ae("gzip; q=0")),
		get("q_zero_decimals", "/style.css", ae("gzip;q=0.000")),
		get("q_small", "/style.css", ae("gzip;q=0.001")),
		get("q_half", "/style.css", ae("gzip;q=0.5")),
		get("q_one", "/style.css", ae("gzip;q=1.0")),
		get("uppercase", "/style.css", ae("GZIP")),
		get("x_gzip", "/style.css", ae("x-gzip")),
		get("star", "/style.css", ae("*")),
		get("identity", "/style.css", ae("identity")),
		get("br_then_gzip_zero", "/style.css", ae("br;q=1, gzip;q=0")),
		get("gzip_in_list", "/style.css", ae("br, gzip")),
		get("gzipx_token", "/style.css", ae("gzipx")),
		get("via_default_off", "/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get("via_any", "/proxied-any/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get("via_expired", "/proxied-expired/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get("via_nocache", "/proxied-nocache/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get("via_auth", "/proxied-auth/style.css", ae("gzip"), "Via: 1.1 proxy", "Authorization: Basic dTpw"),
		get("via_auth_missing", "/proxied-auth/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get("via_no_last_modified", "/proxied-nolm/style.css", ae("gzip"), "Via: 1.1 proxy"),
		get10("http10_default", "/style.css", ae("gzip")),
		get10("http10_enabled", "/g10/style.css", ae("gzip")),
		head("head", "/style.css", ae("gzip")),
		head("head_returned_text", "/text", ae("gzip")),
		head("head_large_file", "/star/big.bin", ae("gzip")),
		get("large_file_from_disk", "/star/big.bin", ae("gzip")),
		get("off", "/off/style.css", ae("gzip")),
		get("novary", "/novary/style.css", ae("gzip")),
		get("novary_small", "/novary/small.txt", ae("gzip")),
		get("types_star_png", "/star/logo.png", ae("gzip")),
		get("min20_small_json", "/min20/data.json", ae("gzip")),
		get("min20_404_page", "/min20/missing.html", ae("gzip")),
		get("disable_regex", "/disable/style.css", ae("gzip"), "User-Agent: curl/8.0"),
		get("disable_regex_other", "/disable/style.css", ae("gzip"), "User-Agent: Mozilla/5.0"),
		get("disable_msie6", "/msie/style.css", ae("gzip"), "User-Agent: Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"),
		get("disable_msie6_sv1", "/msie/style.css", ae("gzip"), "User-Agent: Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)"),
		get("range_ignored", "/style.css", ae("gzip"), "Range: bytes=0-9"),
		get("etag_weak_304", "/style.css", ae("gzip"), "If-None-Match: W/"+etagOf("style.css")),
		get("returned_text", "/text", ae("gzip")),
		get("error_page_too_small", "/missing.css", ae("gzip")),
	},
})

const rangesHTTP = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};

    location / { }
    location /noetag/ { etag off; alias {{ROOT}}/; }
    location /imsbefore/ { if_modified_since before; alias {{ROOT}}/; }
    location /imsoff/ { if_modified_since off; alias {{ROOT}}/; }
    location = /ret { return 200 "returned text, not a file\n"; }
}
`

// rangeReqs runs the range corpus over one file of size bytes.
func rangeReqs(prefix, path string, size int) []reqCase {
	last := itoa(size - 1)
	rng := func(name, v string, more ...string) reqCase {
		return get(prefix+"_"+name, path, append([]string{"Range: " + v}, more...)...)
	}
	return []reqCase{
		rng("first_100", "bytes=0-99"),
		rng("middle", "bytes=100-199"),
		rng("suffix", "bytes=-100"),
		rng("open", "bytes="+itoa(size-100)+"-"),
		rng("whole_open", "bytes=0-"),
		rng("one_byte", "bytes=0-0"),
		rng("last_byte", "bytes="+last+"-"+last),
		rng("end_beyond", "bytes="+itoa(size-10)+"-"+itoa(size+1000)),
		rng("suffix_beyond", "bytes=-"+itoa(size+5)),
		rng("start_at_size", "bytes="+itoa(size)+"-"),
		rng("far_beyond", "bytes="+itoa(size*2)+"-"+itoa(size*3)),
		rng("multi", "bytes=0-99,200-299"),
		rng("multi_spaces", "bytes=0-9, 20-29 , -5"),
		rng("multi_overlap", "bytes=0-99,50-149"),
		rng("multi_one_bad", "bytes=0-9,"+itoa(size*2)+"-"),
		rng("over_size_total", "bytes=0-,0-"),
		rng("suffix_zero", "bytes=-0"),
		rng("reversed", "bytes=20-10"),
		rng("garbage", "bytes=abc"),
		rng("missing_dash", "bytes=10"),
		rng("not_bytes", "items=0-9"),
		rng("uppercase_unit", "BYTES=0-9"),
		rng("if_range_etag", "bytes=0-9", "If-Range: "+etagFor(size)),
		rng("if_range_etag_other", "bytes=0-9", `If-Range: "other"`),
		rng("if_range_date", "bytes=0-9", "If-Range: Fri, 01 Mar 2024 12:00:00 GMT"),
		rng("if_range_date_other", "bytes=0-9", "If-Range: Fri, 01 Mar 2024 12:00:01 GMT"),
		rng("if_range_weak", "bytes=0-9", "If-Range: W/"+etagFor(size)),
	}
}

// condReqs runs the conditional-request corpus over path.
func condReqs(prefix, path, etag string) []reqCase {
	c := func(name string, hdrs ...string) reqCase { return get(prefix+"_"+name, path, hdrs...) }
	return []reqCase{
		c("ims_exact", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		c("ims_later", "If-Modified-Since: Sat, 02 Mar 2024 12:00:00 GMT"),
		c("ims_earlier", "If-Modified-Since: Thu, 29 Feb 2024 12:00:00 GMT"),
		c("ims_garbage", "If-Modified-Since: yesterday"),
		c("ims_rfc850", "If-Modified-Since: Friday, 01-Mar-24 12:00:00 GMT"),
		c("ims_asctime", "If-Modified-Since: Fri Mar  1 12:00:00 2024"),
		c("inm_match", "If-None-Match: "+etag),
		c("inm_list", `If-None-Match: "a", `+etag+`, "b"`),
		c("inm_weak", "If-None-Match: W/"+etag),
		c("inm_star", "If-None-Match: *"),
		c("inm_other", `If-None-Match: "other"`),
		c("inm_match_ims_old", "If-None-Match: "+etag, "If-Modified-Since: Thu, 29 Feb 2024 12:00:00 GMT"),
		c("inm_other_ims_exact", `If-None-Match: "other"`, "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		c("im_match", "If-Match: "+etag),
		c("im_other", `If-Match: "other"`),
		c("im_star", "If-Match: *"),
		c("im_weak", "If-Match: W/"+etag),
		c("ius_later", "If-Unmodified-Since: Sat, 02 Mar 2024 12:00:00 GMT"),
		c("ius_exact", "If-Unmodified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
		c("ius_earlier", "If-Unmodified-Since: Thu, 29 Feb 2024 12:00:00 GMT"),
		c("ius_garbage", "If-Unmodified-Since: garbage"),
		c("range_and_inm", "If-None-Match: "+etag, "Range: bytes=0-9"),
	}
}

var _ = addScenario(scenario{
	name: "ranges_conditional",
	http: rangesHTTP,
	cases: cases(
		rangeReqs("mem", "/text100k.txt", 100<<10),
		rangeReqs("disk", "/big.bin", bigFileSize),
		condReqs("cond", "/hello.txt", etagOf("hello.txt")),
		[]reqCase{
			head("head_range", "/text100k.txt", "Range: bytes=0-9"),
			head("head_inm", "/hello.txt", "If-None-Match: "+etagOf("hello.txt")),
			get("range_404", "/missing.txt", "Range: bytes=0-9"),
			get("range_on_return", "/ret", "Range: bytes=0-4"),
			get("im_on_return", "/ret", `If-Match: "x"`),
			get("im_star_on_return", "/ret", "If-Match: *"),
			get("ius_on_return", "/ret", "If-Unmodified-Since: Sat, 02 Mar 2024 12:00:00 GMT"),
			get("inm_on_return", "/ret", "If-None-Match: *"),
			get("ims_on_return", "/ret", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
			get("noetag_file", "/noetag/hello.txt"),
			get("noetag_inm", "/noetag/hello.txt", "If-None-Match: "+etagOf("hello.txt")),
			get("noetag_if_range_etag", "/noetag/text100k.txt", "Range: bytes=0-9", "If-Range: "+etagOf("text100k.txt")),
			get("imsbefore_later", "/imsbefore/hello.txt", "If-Modified-Since: Sat, 02 Mar 2024 12:00:00 GMT"),
			get("imsbefore_earlier", "/imsbefore/hello.txt", "If-Modified-Since: Thu, 29 Feb 2024 12:00:00 GMT"),
			get("imsoff_exact", "/imsoff/hello.txt", "If-Modified-Since: Fri, 01 Mar 2024 12:00:00 GMT"),
			get("imsoff_inm", "/imsoff/hello.txt", "If-None-Match: "+etagOf("hello.txt")),
		},
	),
})
