// This file compares proxy_cache under nginx and edge with the harness
// of the fastcgi_cache comparison (cache_test.go): both proxy to one
// upstream, an nginx running cache.php through php-fpm without a cache,
// and cache.php counts requests per front (the X-Front header each sets
// to its own port), so a HIT shows as an old count on either. The
// locations follow the fastcgi items, plus what is proxy's own:
// proxy_cache_key's default, proxy_cache_convert_head both ways, and
// proxy_ignore_headers.

package difftest

import (
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// proxyCachePHP is cachePHP counting per front rather than per server.
var proxyCachePHP = strings.Replace(cachePHP, "$port = $_SERVER['SERVER_PORT'];", "$port = $_SERVER['HTTP_X_FRONT'];", 1)

// proxyCacheUpstream is the upstream both fronts proxy to: every URI runs
// cache.php; X-Accel-Expires is passed so the fronts see it.
const proxyCacheUpstream = `
server {
    listen {{LISTEN}};
    server_name localhost;
    location / {
        fastcgi_pass {{FPM}};
        include {{FASTCGI_PARAMS}};
        fastcgi_param SCRIPT_FILENAME {{ROOT}}/cache.php;
        fastcgi_pass_header X-Accel-Expires;
    }
}
`

// proxyCacheConf is the fronts' config; {{UP}} is the upstream.
const proxyCacheConf = `
proxy_cache_path {{CACHE}} levels=1:2 keys_zone=P:1m;
server {
    listen {{LISTEN}};
    server_name localhost;
    server_tokens off;
    add_header X-Cache $upstream_cache_status always;
    proxy_set_header X-Front {{PORT}};
    proxy_set_header X-Lang $http_x_lang;
    proxy_cache P;

    location /default/    { proxy_pass http://{{UP}}; proxy_cache_valid 1m; }
    location /first/      { proxy_pass http://{{UP}}; proxy_cache_valid 404 1m; proxy_cache_valid any 0; }
    location /none/       { proxy_pass http://{{UP}}; }
    location /off/        { proxy_pass http://{{UP}}; proxy_cache off; proxy_cache_valid 1m; }
    location /outer/ {
        proxy_cache_valid 200 1m;
        location /outer/inner/ { proxy_pass http://{{UP}}; proxy_cache_valid 404 1m; }
        location /outer/      { proxy_pass http://{{UP}}; }
    }
    location /short/      { proxy_pass http://{{UP}}; proxy_cache_valid 1s; }
    location /cookie/     { proxy_pass http://{{UP}}; proxy_cache_valid 1m; }
    location /ignore/     { proxy_pass http://{{UP}}; proxy_cache_valid 1s; proxy_ignore_headers Cache-Control Expires X-Accel-Expires; }
    location /nohead/     { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_convert_head off; proxy_cache_key $request_method$request_uri; }
    location /methods/    { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_methods POST; proxy_cache_key $request_method$request_uri; }
    location /bypass/     { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_bypass $arg_b; }
    location /nocache/    { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_bypass $arg_b; proxy_no_cache $arg_b; }
    location /upnocache/  { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_no_cache $upstream_http_x_skip; }
    location /minuses/    { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_min_uses 2; }
    location /stale/      { proxy_pass http://{{UP}}; proxy_cache_valid 1s; proxy_cache_use_stale error http_500; }
    location /nostale/    { proxy_pass http://{{UP}}; proxy_cache_valid 1s; }
    location /bg/         { proxy_pass http://{{UP}}; proxy_cache_valid 1s; proxy_cache_use_stale updating; proxy_cache_background_update on; }
    location /reval/      { proxy_pass http://{{UP}}; proxy_cache_valid 1s; proxy_cache_revalidate on; }
    location /cond/       { proxy_pass http://{{UP}}; proxy_cache_valid 1m; }
    location /gz/         { proxy_pass http://{{UP}}; proxy_cache_valid 1m; gzip on; gzip_vary on; gzip_min_length 1; }
    location /down/       { proxy_pass http://127.0.0.1:1; proxy_cache_valid 1m; }
    location /updating/   { proxy_pass http://{{UP}}; proxy_cache_valid 1s; proxy_cache_use_stale updating; }
    location /locktimeout/ { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_lock on; proxy_cache_lock_timeout 1s; }
    location /lock/       { proxy_pass http://{{UP}}; proxy_cache_valid 1m; proxy_cache_lock on; }
    location /intercept/  { proxy_pass http://{{UP}}; proxy_cache_valid 401 1m; proxy_intercept_errors on; error_page 401 404 = /intercepted; }
    location = /intercepted { return 403; }
}
`

// startProxyCacheUpstream writes proxyCachePHP and starts the upstream
// nginx; it returns the counters directory and the upstream's address.
func startProxyCacheUpstream(t *testing.T, e *env) (string, string) {
	t.Helper()
	counters := cachePHPFiles(t, e, proxyCachePHP)
	upPort := testenv.FreePort(t)
	up := testenv.StartNginx(t, testenv.NginxMain(1)+"http {\n"+testenv.NginxHTTPTemps("")+testenv.NginxHTTPLogs("")+
		e.render(proxyCacheUpstream, upPort)+"}\n", upPort).Addr()
	return counters, up
}

// TestProxyCachePurge is TestFastCGICachePurge's sequence with
// proxy_cache: the same purge forms, on edge alone.
func TestProxyCachePurge(t *testing.T) {
	e := newEnv(t)
	_, up := startProxyCacheUpstream(t, e)
	conf := strings.NewReplacer(
		"fastcgi_param SCRIPT_FILENAME {{ROOT}}/cache.php;", "proxy_set_header X-Front {{PORT}};",
		"include {{FASTCGI_PARAMS}};", "",
		"fastcgi_pass {{FPM}};", "proxy_pass http://"+up+";",
		"fastcgi_", "proxy_",
	).Replace(cachePurgeConf)
	testCachePurge(t, e, conf, "proxy")
}

func TestProxyCacheDifferential(t *testing.T) {
	e := newEnv(t)
	counters, up := startProxyCacheUpstream(t, e)
	p := startCachePair(t, e, strings.ReplaceAll(proxyCacheConf, "{{UP}}", up))
	ports := []int{p.nginxPort, p.edgePort}
	failFlag := func(on bool) func([]int) { return cacheFailFlag(t, counters, on) }
	h := phpHeaders
	head := func(name, target string) cacheStep {
		return cacheStep{name: name, raw: requestText("HEAD", target, "HTTP/1.1", "", nil)}
	}
	steps := []cacheStep{
		// proxy_cache_valid without codes: 200 301 302; the default key
		// $scheme$proxy_host$request_uri tells the URLs apart.
		cget("default_200_miss", "/default/?id=a").wanting("MISS", ""),
		cget("default_200_hit", "/default/?id=a").wanting("HIT", ""),
		cget("default_other_uri", "/default/?id=a2").wanting("MISS", ""),
		cget("default_404_miss", "/default/?id=b&status=404"),
		cget("default_404_not_cached", "/default/?id=b&status=404"),
		cget("default_302", "/default/?id=c&status=302"+h("Location: /x")),
		cget("default_302_hit", "/default/?id=c&status=302"+h("Location: /x")).comparing("Location"),
		cget("first_404", "/first/?id=a&status=404"),
		cget("first_404_hit", "/first/?id=a&status=404"),
		cget("first_200", "/first/?id=b"),
		cget("first_200_not_cached", "/first/?id=b"),
		cget("none_no_ttl", "/none/?id=a"),
		cget("none_no_ttl_again", "/none/?id=a"),
		cget("none_max_age", "/none/?id=b"+h("Cache-Control: max-age=30")),
		cget("none_max_age_hit", "/none/?id=b"+h("Cache-Control: max-age=30")),
		cget("none_xae", "/none/?id=c"+h("X-Accel-Expires: 30")),
		cget("none_xae_hit", "/none/?id=c"+h("X-Accel-Expires: 30")).wanting("HIT", ""),
		cget("off", "/off/?id=a"),
		cget("off_again", "/off/?id=a"),
		cget("inner_200", "/outer/inner/?id=a"),
		cget("inner_200_not_cached", "/outer/inner/?id=a"),
		cget("inner_404", "/outer/inner/?id=b&status=404"),
		cget("inner_404_hit", "/outer/inner/?id=b&status=404"),
		cget("outer_200", "/outer/?id=a"),
		cget("outer_200_hit", "/outer/?id=a"),
		// An intercepted error is remembered when it is cacheable (nginx
		// ticket #1382): by max-age without a valid rule, by the rule
		// without headers, never with no-cache; the error page then
		// answers without the upstream.
		cget("intercept_maxage", "/intercept/?id=a&status=404"+h("Cache-Control: max-age=60")),
		cget("intercept_maxage_hit", "/intercept/?id=a&status=404"+h("Cache-Control: max-age=60")).wanting("HIT", ""),
		cget("intercept_valid", "/intercept/?id=b&status=401"),
		cget("intercept_valid_hit", "/intercept/?id=b&status=401").wanting("HIT", ""),
		cget("intercept_nocache", "/intercept/?id=c&status=401"+h("Cache-Control: no-cache")),
		cget("intercept_nocache_again", "/intercept/?id=c&status=401"+h("Cache-Control: no-cache")),
		cget("intercept_no_ttl", "/intercept/?id=d&status=404"),
		cget("intercept_no_ttl_again", "/intercept/?id=d&status=404"),
	}
	steps = append(steps, headerDecisionSteps()...)
	steps = append(steps, []cacheStep{
		// proxy_ignore_headers: the headers' TTLs and no-cache do not count.
		cget("ignore_cc", "/ignore/?id=a"+h("Cache-Control: no-cache", "Expires: Thu, 01 Jan 2015 00:00:00 GMT", "X-Accel-Expires: 0")),
		cget("ignore_cc_hit", "/ignore/?id=a"+h("Cache-Control: no-cache", "Expires: Thu, 01 Jan 2015 00:00:00 GMT", "X-Accel-Expires: 0")).wanting("HIT", ""),
		// proxy_cache_convert_head on (the default): the HEAD goes as a
		// GET, and its entry answers GETs with a body (stored after the
		// HEAD was answered, as in cache_test.go).
		head("head_miss", "/default/?id=head").wanting("MISS", ""),
		cget("head_then_get", "/default/?id=head").after(headStoreWait).wanting("HIT", "method=GET"),
		head("head_hit", "/default/?id=head"),
		// off, with the method in the key: HEAD and GET apart.
		head("nohead_head", "/nohead/?id=a"),
		head("nohead_head_hit", "/nohead/?id=a").wanting("HIT", ""),
		cget("nohead_get", "/nohead/?id=a").wanting("MISS", "method=GET"),
		cget("nohead_get_hit", "/nohead/?id=a"),
		{name: "post_default", raw: requestText("POST", "/default/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_default_again", raw: requestText("POST", "/default/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_cached", raw: requestText("POST", "/methods/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_cached_hit", raw: requestText("POST", "/methods/?id=p", "HTTP/1.1", "x=1", nil)},
		cget("bypass_fill", "/bypass/?id=a"),
		cget("bypass_zero", "/bypass/?id=a&b=0"),
		cget("bypass_on", "/bypass/?id=a&b=1").wanting("BYPASS", ""),
		cget("bypass_stored", "/bypass/?id=a"),
		cget("nocache_fill", "/nocache/?id=a"),
		cget("nocache_on", "/nocache/?id=a&b=1"),
		cget("nocache_kept_old", "/nocache/?id=a").wanting("HIT", ""),
		cget("upstream_no_cache", "/upnocache/?id=a"+h("X-Skip: 1")),
		cget("upstream_no_cache_again", "/upnocache/?id=a"+h("X-Skip: 1")),
		cget("minuses_1", "/minuses/?id=a"),
		cget("minuses_2", "/minuses/?id=a"),
		cget("minuses_3", "/minuses/?id=a").wanting("HIT", ""),
		// conditional and range requests answered from the cache, and not
		// passed upstream on a MISS.
		cget("cond_fill", "/cond/?id=a&lm=1"),
		cget("cond_ims", "/cond/?id=a&lm=1", "If-Modified-Since: Tue, 01 Dec 2020 00:00:00 GMT").wanting("HIT", ""),
		cget("cond_inm", "/cond/?id=a&lm=1", "If-None-Match: \"v1\""),
		cget("cond_inm_other", "/cond/?id=a&lm=1", "If-None-Match: \"v2\""),
		cget("range_hit", "/cond/?id=a&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("range_miss", "/cond/?id=r&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("range_miss_hit", "/cond/?id=r&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("ims_on_miss", "/cond/?id=s&lm=1", "If-Modified-Since: Tue, 01 Dec 2020 00:00:00 GMT"),
		cget("gz_miss", "/gz/?id=a&lm=1", "Accept-Encoding: gzip").comparing("Content-Encoding"),
		cget("gz_hit", "/gz/?id=a&lm=1", "Accept-Encoding: gzip").comparing("Content-Encoding").wanting("HIT", ""),
		cget("gz_hit_identity", "/gz/?id=a&lm=1").comparing("Content-Encoding"),
		cget("down", "/down/?id=a"),
		cget("down_again", "/down/?id=a"),
		// whole-second validity, stale on error and http_500, background
		// update, revalidation.
		cget("short_fill", "/short/?id=a"),
		cget("short_hit", "/short/?id=a"),
		cget("ignore_fill", "/ignore/?id=b"+h("Cache-Control: max-age=60")),
		cget("stale_fill", "/stale/?id=a&fail=1"),
		cget("nostale_fill", "/nostale/?id=a&fail=1"),
		cget("bg_fill", "/bg/?id=a"),
		cget("reval_fill", "/reval/?id=a&lm=1"),
		cget("short_expired", "/short/?id=a").after(2100*time.Millisecond).wanting("EXPIRED", ""),
		cget("short_refilled", "/short/?id=a"),
		cget("ignore_expired", "/ignore/?id=b"+h("Cache-Control: max-age=60")).wanting("EXPIRED", ""),
		{name: "stale_http_500", raw: requestText("GET", "/stale/?id=a&fail=1", "HTTP/1.1", "", nil), setup: failFlag(true), want: [2]string{"STALE", ""}},
		cget("nostale_500", "/nostale/?id=a&fail=1"),
		{name: "stale_recovered", raw: requestText("GET", "/stale/?id=a&fail=1", "HTTP/1.1", "", nil), setup: failFlag(false)},
		cget("bg_stale", "/bg/?id=a").wanting("STALE", ""),
		cget("bg_updated", "/bg/?id=a").after(500*time.Millisecond).wanting("HIT", ""),
		cget("reval_revalidated", "/reval/?id=a&lm=1").wanting("REVALIDATED", ""),
		cget("reval_hit", "/reval/?id=a&lm=1"),
	}...)
	identical := compareCacheSteps(t, p, steps, ports)
	t.Logf("PROXYCACHEDIFF: %d of %d steps identical to nginx", identical, len(steps))
	cacheFloods(t, p, counters)
}
