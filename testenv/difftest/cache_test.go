// This file compares fastcgi_cache under nginx and edge: one location
// per item of the spec's checklist (../shared/research/fastcgi-cache-spec.md),
// a sequence of requests sent to both servers in the same order, and for
// each the status, $upstream_cache_status (X-Cache), the body (which
// carries PHP's per-server request counter, so a HIT shows as an old
// count) and the headers caching changes. Sleeps are only where nginx's
// behaviour needs real time (a validity of 1 s running out).

package difftest

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"edge/testenv"
)

// gunzipped is a response's body, decompressed when it is gzip (the
// compressed bytes of two compressors differ; what they hold must not).
func gunzipped(r *testenv.RawResponse) []byte {
	if r.Header.Get("Content-Encoding") != "gzip" {
		return r.Body
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err != nil {
		return []byte("bad gzip: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return []byte("bad gzip: " + err.Error())
	}
	return b
}

// cachePHP answers with a counter of the requests it got for its id on
// this server (so nginx's and edge's are apart), the headers h[] names in
// order, status=, sleep= (ms), Last-Modified/ETag with lm=1 (304 to a
// matching conditional), and a 500 with fail=1 while the flag file
// exists.
const cachePHP = `<?php
$port = $_SERVER['SERVER_PORT'];
$id = isset($_GET['id']) ? $_GET['id'] : 'x';
$dir = __DIR__ . '/counters';
$f = $dir . '/' . $port . '-' . md5($id);
$fp = fopen($f, 'c+');
flock($fp, LOCK_EX);
$n = (int)stream_get_contents($fp) + 1;
ftruncate($fp, 0); rewind($fp); fwrite($fp, (string)$n); fflush($fp);
flock($fp, LOCK_UN); fclose($fp);
if (isset($_GET['sleep'])) usleep((int)$_GET['sleep'] * 1000);
if (isset($_GET['fail']) && file_exists($dir . '/fail-' . $port)) { http_response_code(500); echo "failed\n"; exit; }
if (isset($_GET['status'])) http_response_code((int)$_GET['status']);
if (isset($_GET['h'])) foreach ((array)$_GET['h'] as $h) header($h, false);
if (isset($_GET['lm'])) {
    $lm = 'Tue, 01 Dec 2020 00:00:00 GMT';
    header('Last-Modified: ' . $lm);
    header('ETag: "v1"');
    if ((isset($_SERVER['HTTP_IF_MODIFIED_SINCE']) && $_SERVER['HTTP_IF_MODIFIED_SINCE'] === $lm) ||
        (isset($_SERVER['HTTP_IF_NONE_MATCH']) && $_SERVER['HTTP_IF_NONE_MATCH'] === '"v1"')) {
        http_response_code(304);
        exit;
    }
}
echo "id=$id n=$n method={$_SERVER['REQUEST_METHOD']} lang=" . (isset($_SERVER['HTTP_X_LANG']) ? $_SERVER['HTTP_X_LANG'] : '') . "\n";
`

// cacheConf is one location per checklist item; {{CACHE}} is a
// directory of each server's own.
const cacheConf = `
fastcgi_cache_path {{CACHE}} levels=1:2 keys_zone=Z:1m;
server {
    listen {{LISTEN}};
    server_name localhost;
    server_tokens off;
    root {{ROOT}};
    fastcgi_param SCRIPT_FILENAME {{ROOT}}/cache.php;
    include {{FASTCGI_PARAMS}};
    add_header X-Cache $upstream_cache_status always;
    fastcgi_cache Z;
    fastcgi_cache_key $request_uri;

    location /default/    { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; }
    location /first/      { fastcgi_pass {{FPM}}; fastcgi_cache_valid 404 1m; fastcgi_cache_valid any 0; }
    location /none/       { fastcgi_pass {{FPM}}; }
    location /off/        { fastcgi_pass {{FPM}}; fastcgi_cache off; fastcgi_cache_valid 1m; }
    location /outer/ {
        fastcgi_cache_valid 200 1m;
        location /outer/inner/ { fastcgi_pass {{FPM}}; fastcgi_cache_valid 404 1m; }
        location /outer/      { fastcgi_pass {{FPM}}; }
    }
    location /short/      { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; }
    location /cookie/     { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; }
    location /methods/    { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_methods POST; fastcgi_cache_key $request_method$request_uri; }
    location /bypass/     { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_bypass $arg_b; }
    location /nocache/    { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_bypass $arg_b; fastcgi_no_cache $arg_b; }
    location /upnocache/  { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_no_cache $upstream_http_x_skip; }
    location /minuses/    { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_min_uses 2; }
    location /stale/      { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; fastcgi_cache_use_stale error http_500; }
    location /nostale/    { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; }
    location /bg/         { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; fastcgi_cache_use_stale updating; fastcgi_cache_background_update on; }
    location /reval/      { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; fastcgi_cache_revalidate on; }
    location /cond/       { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; }
    location /updating/   { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1s; fastcgi_cache_use_stale updating; }
    location /locktimeout/ { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_lock on; fastcgi_cache_lock_timeout 1s; }
    location /lock/       { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; fastcgi_cache_lock on; }
    location /gz/         { fastcgi_pass {{FPM}}; fastcgi_cache_valid 1m; gzip on; gzip_vary on; gzip_min_length 1; }
    location /down/       { fastcgi_pass 127.0.0.1:1; fastcgi_cache_valid 1m; }
    location /intercept/  { fastcgi_pass {{FPM}}; fastcgi_cache_valid 401 1m; fastcgi_intercept_errors on; error_page 401 404 = /intercepted; }
    location = /intercepted { return 403; }
}
# no fastcgi_cache_key: every URL shares one entry.
server {
    listen {{LISTEN}};
    server_name nokey;
    fastcgi_param SCRIPT_FILENAME {{ROOT}}/cache.php;
    include {{FASTCGI_PARAMS}};
    add_header X-Cache $upstream_cache_status always;
    location / { fastcgi_pass {{FPM}}; fastcgi_cache Z; fastcgi_cache_valid 1m; }
}
`

// cacheStep is one request of the sequence; sleep runs before it.
type cacheStep struct {
	name   string
	raw    string
	sleep  time.Duration
	setup  func(ports []int) // run before the request (a fail flag)
	header []string          // more headers to compare
	// want, when set, is the X-Cache and a substring of the body both
	// must give, so that a sequence where both servers fail alike does
	// not pass as identical.
	want [2]string
}

func cget(name, target string, hdrs ...string) cacheStep {
	return cacheStep{name: name, raw: requestText("GET", target, "HTTP/1.1", "", hdrs)}
}

func (s cacheStep) after(d time.Duration) cacheStep { s.sleep = d; return s }

// headStoreWait is how long a step after a cached HEAD waits for nginx to
// store the entry it has already answered from (cache_test.go's
// head_then_get says why).
const headStoreWait = 200 * time.Millisecond

func (s cacheStep) comparing(h ...string) cacheStep { s.header = h; return s }

func (s cacheStep) wanting(status, body string) cacheStep { s.want = [2]string{status, body}; return s }

// cacheCompared are the headers every step compares.
var cacheCompared = []string{"X-Cache", "Content-Type", "Cache-Control", "Expires", "Set-Cookie", "Vary", "Etag",
	"Last-Modified", "X-Accel-Expires", "Status", "Age", "X-Skip"}

func TestFastCGICacheDifferential(t *testing.T) {
	e := newEnv(t)
	counters := cachePHPFiles(t, e, cachePHP)
	p := startCachePair(t, e, cacheConf)
	ports := []int{p.nginxPort, p.edgePort}
	failFlag := func(on bool) func([]int) { return cacheFailFlag(t, counters, on) }
	h := phpHeaders
	steps := []cacheStep{
		// fastcgi_cache_valid without codes: 200 301 302.
		cget("default_200_miss", "/default/?id=a"),
		cget("default_200_hit", "/default/?id=a"),
		cget("default_404_miss", "/default/?id=b&status=404"),
		cget("default_404_not_cached", "/default/?id=b&status=404"),
		cget("default_302", "/default/?id=c&status=302"+h("Location: /x")),
		cget("default_302_hit", "/default/?id=c&status=302"+h("Location: /x")).comparing("Location"),
		// first match in config order; "any 0" caches nothing else.
		cget("first_404", "/first/?id=a&status=404"),
		cget("first_404_hit", "/first/?id=a&status=404"),
		cget("first_200", "/first/?id=b"),
		cget("first_200_not_cached", "/first/?id=b"),
		// no fastcgi_cache_valid: only a header TTL caches.
		cget("none_no_ttl", "/none/?id=a"),
		cget("none_no_ttl_again", "/none/?id=a"),
		cget("none_max_age", "/none/?id=b"+h("Cache-Control: max-age=30")),
		cget("none_max_age_hit", "/none/?id=b"+h("Cache-Control: max-age=30")),
		cget("none_404_max_age", "/none/?id=c&status=404"+h("Cache-Control: max-age=30")),
		cget("none_404_max_age_hit", "/none/?id=c&status=404"+h("Cache-Control: max-age=30")),
		cget("off", "/off/?id=a"),
		cget("off_again", "/off/?id=a"),
		// a location's valid list replaces the inherited one.
		cget("inner_200", "/outer/inner/?id=a"),
		cget("inner_200_not_cached", "/outer/inner/?id=a"),
		cget("inner_404", "/outer/inner/?id=b&status=404"),
		cget("inner_404_hit", "/outer/inner/?id=b&status=404"),
		cget("outer_200", "/outer/?id=a"),
		cget("outer_200_hit", "/outer/?id=a"),
		// an intercepted error is remembered when cacheable (ticket #1382).
		cget("intercept_maxage", "/intercept/?id=a&status=404"+h("Cache-Control: max-age=60")),
		cget("intercept_maxage_hit", "/intercept/?id=a&status=404"+h("Cache-Control: max-age=60")).wanting("HIT", ""),
		cget("intercept_valid", "/intercept/?id=b&status=401"),
		cget("intercept_valid_hit", "/intercept/?id=b&status=401").wanting("HIT", ""),
		cget("intercept_nocache", "/intercept/?id=c&status=401"+h("Cache-Control: no-cache")),
		cget("intercept_nocache_again", "/intercept/?id=c&status=401"+h("Cache-Control: no-cache")),
		// Set-Cookie, Cache-Control substrings, s-maxage, Expires, X-Accel-Expires, Vary.
	}
	steps = append(steps, headerDecisionSteps()...)
	steps = append(steps, []cacheStep{
		cget("expires_with_max_age", "/cookie/?id=k"+h("Cache-Control: max-age=60", "Expires: Thu, 01 Jan 2015 00:00:00 GMT")),
		cget("expires_with_max_age_hit", "/cookie/?id=k"+h("Cache-Control: max-age=60", "Expires: Thu, 01 Jan 2015 00:00:00 GMT")),
		cget("vary_long", "/cookie/?id=l"+h("Vary: "+strings.Repeat("X-Long-Header-Name-", 8))),
		cget("vary_long_again", "/cookie/?id=l"+h("Vary: "+strings.Repeat("X-Long-Header-Name-", 8))),
		cget("vary_list_with_star", "/cookie/?id=m"+h("Vary: X-Lang, *")),
		cget("vary_list_with_star_again", "/cookie/?id=m"+h("Vary: X-Lang, *")),
		cget("nokey_a", "/?id=a", "Host: nokey"),
		cget("nokey_b_shares_a", "/?id=b", "Host: nokey"),
		cget("status_hidden", "/cookie/?id=j"+h("Status: 200 OK")),
		cget("status_hidden_hit", "/cookie/?id=j"+h("Status: 200 OK")),
		// HEAD is not turned into GET: its empty body answers GETs. nginx
		// answers a HEAD it will cache before it has read the rest of
		// PHP's response and stored it (ngx_http_upstream_send_response
		// goes on reading with downstream_error set), so a GET sent at
		// once can still find no entry: it waits a little.
		{name: "head_miss", raw: requestText("HEAD", "/default/?id=head", "HTTP/1.1", "", nil)},
		cget("head_then_get", "/default/?id=head").after(headStoreWait),
		// POST: not cached (no status) unless fastcgi_cache_methods names it.
		{name: "post_default", raw: requestText("POST", "/default/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_default_again", raw: requestText("POST", "/default/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_cached", raw: requestText("POST", "/methods/?id=p", "HTTP/1.1", "x=1", nil)},
		{name: "post_cached_hit", raw: requestText("POST", "/methods/?id=p", "HTTP/1.1", "x=1", nil)},
		// bypass stores unless no_cache; "" and "0" are false.
		cget("bypass_fill", "/bypass/?id=a"),
		cget("bypass_zero", "/bypass/?id=a&b=0"),
		cget("bypass_on", "/bypass/?id=a&b=1"),
		cget("bypass_stored", "/bypass/?id=a"),
		cget("nocache_fill", "/nocache/?id=a"),
		cget("nocache_on", "/nocache/?id=a&b=1"),
		cget("nocache_kept_old", "/nocache/?id=a"),
		cget("upstream_no_cache", "/upnocache/?id=a"+h("X-Skip: 1")),
		cget("upstream_no_cache_again", "/upnocache/?id=a"+h("X-Skip: 1")),
		// min_uses 2.
		cget("minuses_1", "/minuses/?id=a"),
		cget("minuses_2", "/minuses/?id=a"),
		cget("minuses_3", "/minuses/?id=a"),
		// conditional requests answered from the cache.
		cget("cond_fill", "/cond/?id=a&lm=1"),
		cget("cond_ims", "/cond/?id=a&lm=1", "If-Modified-Since: Tue, 01 Dec 2020 00:00:00 GMT"),
		cget("cond_inm", "/cond/?id=a&lm=1", "If-None-Match: \"v1\""),
		cget("cond_inm_other", "/cond/?id=a&lm=1", "If-None-Match: \"v2\""),
		cget("range_hit", "/cond/?id=a&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("range_miss", "/cond/?id=r&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("range_miss_hit", "/cond/?id=r&lm=1", "Range: bytes=0-3").comparing("Accept-Ranges", "Content-Range"),
		cget("plain_hit_accept_ranges", "/cond/?id=r&lm=1").comparing("Accept-Ranges", "Content-Range"),
		cget("ims_on_miss", "/cond/?id=s&lm=1", "If-Modified-Since: Tue, 01 Dec 2020 00:00:00 GMT"),
		// gzip: the stored variant for clients that take it, the
		// identity body for the others, Vary and ETag as nginx's gzip
		// filter leaves them.
		cget("gz_miss", "/gz/?id=a&lm=1", "Accept-Encoding: gzip").comparing("Content-Encoding"),
		cget("gz_hit", "/gz/?id=a&lm=1", "Accept-Encoding: gzip").comparing("Content-Encoding"),
		cget("gz_hit_identity", "/gz/?id=a&lm=1").comparing("Content-Encoding"),
		cget("gz_hit_q0", "/gz/?id=a&lm=1", "Accept-Encoding: gzip;q=0").comparing("Content-Encoding"),
		cget("gz_identity_first", "/gz/?id=b").comparing("Content-Encoding"),
		cget("gz_identity_first_hit", "/gz/?id=b", "Accept-Encoding: gzip, br").comparing("Content-Encoding"),
		// an unreachable backend: 502, nothing cached.
		cget("down", "/down/?id=a"),
		// whole-second validity, stale on error and http_500, background
		// update, revalidation.
		cget("short_fill", "/short/?id=a"),
		cget("short_hit", "/short/?id=a"),
		cget("stale_fill", "/stale/?id=a&fail=1"),
		cget("nostale_fill", "/nostale/?id=a&fail=1"),
		cget("bg_fill", "/bg/?id=a"),
		cget("xae_over_cc_fill", "/none/?id=x"+h("Cache-Control: max-age=1", "X-Accel-Expires: 60")),
		cget("cc_after_xae_fill", "/none/?id=y"+h("X-Accel-Expires: 60", "Cache-Control: max-age=1")),
		cget("sie_fill", "/none/?id=sie&fail=1"+h("Cache-Control: max-age=1, stale-if-error=60")),
		cget("sie_500_fill", "/nostale/?id=sie&fail=1"+h("Cache-Control: max-age=1, stale-if-error=60")),
		cget("reval_fill", "/reval/?id=a&lm=1"),
		cget("short_expired", "/short/?id=a").after(2100 * time.Millisecond),
		cget("short_refilled", "/short/?id=a"),
		{name: "stale_http_500", raw: requestText("GET", "/stale/?id=a&fail=1", "HTTP/1.1", "", nil), setup: failFlag(true)},
		cget("nostale_500", "/nostale/?id=a&fail=1"),
		cget("xae_over_cc_hit", "/none/?id=x"+h("Cache-Control: max-age=1", "X-Accel-Expires: 60")),
		cget("cc_after_xae_hit", "/none/?id=y"+h("X-Accel-Expires: 60", "Cache-Control: max-age=1")),
		cget("stale_if_error_status", "/none/?id=sie&fail=1"+h("Cache-Control: max-age=1, stale-if-error=60")),
		{name: "stale_recovered", raw: requestText("GET", "/stale/?id=a&fail=1", "HTTP/1.1", "", nil), setup: failFlag(false)},
		cget("bg_stale", "/bg/?id=a"),
		cget("bg_updated", "/bg/?id=a").after(500 * time.Millisecond),
		cget("reval_revalidated", "/reval/?id=a&lm=1"),
		cget("reval_hit", "/reval/?id=a&lm=1"),
	}...)
	identical := compareCacheSteps(t, p, steps, ports)
	t.Logf("CACHEDIFF: %d of %d steps identical to nginx", identical, len(steps))

	cacheFloods(t, p, counters)
}

// cachePHPFiles writes php as the docroot's cache.php with the counters
// directory it writes to, and returns that directory.
func cachePHPFiles(t *testing.T, e *env, php string) string {
	t.Helper()
	writeFile(t, filepath.Join(e.root, "cache.php"), php, 0o644)
	counters := filepath.Join(e.root, "counters")
	if err := os.MkdirAll(counters, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(counters, 0o777); err != nil {
		t.Fatal(err)
	}
	return counters
}

// startCachePair starts nginx and edge with conf, whose {{CACHE}} is a
// cache directory of each server's own.
func startCachePair(t *testing.T, e *env, conf string) *pair {
	t.Helper()
	cacheBase := t.TempDir()
	if err := os.Chmod(cacheBase, 0o755); err != nil {
		t.Fatal(err)
	}
	p := &pair{nginxPort: testenv.FreePort(t), edgePort: testenv.FreePort(t)}
	render := func(port int) string {
		return strings.ReplaceAll(e.render(conf, port), "{{CACHE}}", filepath.Join(cacheBase, "c"+strconv.Itoa(port)))
	}
	nginxConf := testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs("") +
		"include " + e.mime + ";\n" + render(p.nginxPort) + "}\n"
	p.nginxAddr = testenv.StartNginx(t, nginxConf, p.nginxPort).Addr()
	p.edgeAddr = startEdge(t, render(p.edgePort), e.mime, p.edgePort)
	return p
}

// cacheFloods runs the concurrent checks on both servers: /lock/ (50
// requests for a new key reach the upstream once), /updating/ (a flood
// on an expired key: one EXPIRED, the rest UPDATING) and /locktimeout/
// (waiters that time out go upstream themselves and store nothing).
func cacheFloods(t *testing.T, p *pair, counters string) {
	t.Helper()
	// Lock: 50 concurrent requests for a new key reach PHP once, on
	// both servers.
	for _, srv := range []struct {
		name string
		addr string
		port int
	}{{"nginx", p.nginxAddr, p.nginxPort}, {"edge", p.edgeAddr, p.edgePort}} {
		var wg sync.WaitGroup
		bodies := make([]string, 50)
		for i := range bodies {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r, err := testenv.DoRaw(srv.addr, requestText("GET", "/lock/?id=flood&sleep=1000", "HTTP/1.1", "", nil))
				if err == nil {
					bodies[i] = string(r.Body)
				}
			}(i)
		}
		wg.Wait()
		sum := md5.Sum([]byte("flood"))
		n, _ := os.ReadFile(filepath.Join(counters, strconv.Itoa(srv.port)+"-"+hex.EncodeToString(sum[:])))
		if string(n) != "1" {
			t.Errorf("lock: %s passed %s of 50 concurrent requests to PHP, want 1", srv.name, n)
		}
		for i, b := range bodies {
			if b != "id=flood n=1 method=GET lang=\n" {
				t.Errorf("lock: %s request %d got %q", srv.name, i, b)
				break
			}
		}
	}

	// use_stale updating: a flood on an expired key reaches PHP once;
	// the one that does is EXPIRED, every other request gets the stale
	// page as UPDATING.
	servers := []struct{ name, addr string }{{"nginx", p.nginxAddr}, {"edge", p.edgeAddr}}
	for _, srv := range servers {
		if _, err := testenv.DoRaw(srv.addr, requestText("GET", "/updating/?id=upd-"+srv.name+"&sleep=1000", "HTTP/1.1", "", nil)); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2100 * time.Millisecond)
	for _, srv := range servers {
		count := flood(srv.addr, "/updating/?id=upd-"+srv.name+"&sleep=1000", 20)
		if count["EXPIRED n=2"] != 1 || count["UPDATING n=1"] != 19 {
			t.Errorf("use_stale updating flood on %s: %v, want 1 EXPIRED n=2 and 19 UPDATING n=1", srv.name, count)
		}
	}

	// lock_timeout: waiters that time out go to PHP themselves, MISS,
	// and store nothing (PHP sleeps 2.5 s, the lock waits 1 s).
	results := map[string]map[string]int{}
	for _, srv := range servers {
		target := "/locktimeout/?id=lt-" + srv.name + "&sleep=2500"
		count := flood(srv.addr, target, 3)
		count["after: "+strings.Join(mapKeys(flood(srv.addr, target, 1)), "")]++
		results[srv.name] = count
	}
	if fmt.Sprint(results["nginx"]) != fmt.Sprint(results["edge"]) {
		t.Errorf("lock_timeout: nginx %v, edge %v", results["nginx"], results["edge"])
	}
	t.Logf("lock_timeout: nginx %v, edge %v", results["nginx"], results["edge"])
}

// headerDecisionSteps are the steps for the response headers that decide
// whether and how long an entry is kept (Set-Cookie, Cache-Control and
// its substrings, s-maxage, Expires, X-Accel-Expires, Vary), in
// /cookie/, a location with a 1m validity.
func headerDecisionSteps() []cacheStep {
	h := phpHeaders
	return []cacheStep{
		cget("cookie", "/cookie/?id=a"+h("Set-Cookie: s=1")),
		cget("cookie_not_cached", "/cookie/?id=a"+h("Set-Cookie: s=1")).wanting("MISS", ""),
		cget("cc_private", "/cookie/?id=b"+h("Cache-Control: private")),
		cget("cc_private_again", "/cookie/?id=b"+h("Cache-Control: private")),
		cget("cc_substring", "/cookie/?id=c"+h("Cache-Control: x-no-store-y")),
		cget("cc_substring_again", "/cookie/?id=c"+h("Cache-Control: x-no-store-y")),
		cget("smaxage_zero", "/cookie/?id=d"+h("Cache-Control: max-age=60, s-maxage=0")),
		cget("smaxage_zero_again", "/cookie/?id=d"+h("Cache-Control: max-age=60, s-maxage=0")),
		cget("expires_past", "/cookie/?id=e"+h("Expires: Thu, 01 Jan 2015 00:00:00 GMT")),
		cget("expires_past_again", "/cookie/?id=e"+h("Expires: Thu, 01 Jan 2015 00:00:00 GMT")),
		cget("xae_zero", "/cookie/?id=f"+h("X-Accel-Expires: 0")),
		cget("xae_zero_again", "/cookie/?id=f"+h("X-Accel-Expires: 0")),
		cget("xae_hidden", "/cookie/?id=g"+h("X-Accel-Expires: 60")),
		cget("xae_hidden_hit", "/cookie/?id=g"+h("X-Accel-Expires: 60")).wanting("HIT", ""),
		cget("vary_star", "/cookie/?id=h"+h("Vary: *")),
		cget("vary_star_again", "/cookie/?id=h"+h("Vary: *")),
		cget("vary_en", "/cookie/?id=i"+h("Vary: X-Lang"), "X-Lang: en"),
		cget("vary_de", "/cookie/?id=i"+h("Vary: X-Lang"), "X-Lang: de"),
		cget("vary_en_hit", "/cookie/?id=i"+h("Vary: X-Lang"), "X-Lang: en"),
		cget("vary_de_hit", "/cookie/?id=i"+h("Vary: X-Lang"), "X-Lang: de").wanting("HIT", "lang=de"),
	}
}

// phpHeaders are cachePHP's h[] arguments: the response headers it sends.
func phpHeaders(hs ...string) string {
	var b strings.Builder
	for _, x := range hs {
		b.WriteString("&h[]=" + strings.ReplaceAll(strings.ReplaceAll(x, " ", "%20"), ";", "%3B"))
	}
	return b.String()
}

// cacheFailFlag makes a step's setup that turns cachePHP's fail=1 on or
// off for the servers on ports.
func cacheFailFlag(t *testing.T, counters string, on bool) func([]int) {
	return func(ports []int) {
		for _, port := range ports {
			f := filepath.Join(counters, "fail-"+strconv.Itoa(port))
			if on {
				writeFile(t, f, "1", 0o644)
			} else {
				os.Remove(f)
			}
		}
	}
}

// compareCacheSteps sends each step to nginx and then edge and compares
// status, cacheCompared and the step's headers, and the (decompressed)
// body; it returns how many steps were identical.
func compareCacheSteps(t *testing.T, p *pair, steps []cacheStep, ports []int) int {
	t.Helper()
	identical := 0
	for _, s := range steps {
		if s.sleep > 0 {
			time.Sleep(s.sleep)
		}
		if s.setup != nil {
			s.setup(ports)
		}
		ng, nerr := testenv.DoRaw(p.nginxAddr, s.raw)
		ed, eerr := testenv.DoRaw(p.edgeAddr, s.raw)
		if nerr != nil || eerr != nil {
			t.Errorf("%s: nginx err %v, edge err %v", s.name, nerr, eerr)
			continue
		}
		var diffs []string
		if w := s.want; w[0] != "" {
			for _, r := range []*testenv.RawResponse{ng, ed} {
				if r.Header.Get("X-Cache") != w[0] || !strings.Contains(string(gunzipped(r)), w[1]) {
					diffs = append(diffs, "want "+w[0]+" "+strconv.Quote(w[1])+", got "+r.Header.Get("X-Cache")+" "+strconv.Quote(string(r.Body)))
				}
			}
		}
		if ng.Status != ed.Status {
			diffs = append(diffs, "status "+strconv.Itoa(ng.Status)+" vs "+strconv.Itoa(ed.Status))
		}
		for _, name := range append(cacheCompared, s.header...) {
			nv, ev := strings.Join(ng.Header.Values(name), " | "), strings.Join(ed.Header.Values(name), " | ")
			if name == "Expires" && nv != "" && ev != "" && datesClose(nv, ev) {
				continue
			}
			if nv != ev {
				diffs = append(diffs, name+": "+strconv.Quote(nv)+" vs "+strconv.Quote(ev))
			}
		}
		if string(gunzipped(ng)) != strings.ReplaceAll(string(gunzipped(ed)), "<center>edge</center>", "<center>nginx</center>") {
			diffs = append(diffs, "body "+strconv.Quote(string(ng.Body))+" vs "+strconv.Quote(string(ed.Body)))
		}
		if len(diffs) > 0 {
			t.Errorf("%s: edge differs from nginx (nginx first):\n  %s", s.name, strings.Join(diffs, "\n  "))
			continue
		}
		identical++
	}
	return identical
}

// cachePurgeConf is edge's alone: Debian's nginx has neither
// ngx_cache_purge nor NGINX Plus's purge.
const cachePurgeConf = `
fastcgi_cache_path {{CACHE}} levels=1:2 keys_zone=Z:1m;
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    fastcgi_param SCRIPT_FILENAME {{ROOT}}/cache.php;
    include {{FASTCGI_PARAMS}};
    add_header X-Cache $upstream_cache_status always;
    fastcgi_cache Z;
    fastcgi_cache_key $scheme$host$request_uri;
    fastcgi_cache_valid 1m;

    location /m/    { fastcgi_pass {{FPM}}; fastcgi_cache_purge PURGE from 127.0.0.1; }
    location /far/  { fastcgi_pass {{FPM}}; fastcgi_cache_purge PURGE from 10.1.2.3 192.168.0.0/16; }
    location /plus/ { fastcgi_pass {{FPM}}; fastcgi_cache_purge $http_x_purge; }
    location ~ ^/purge(/.*) { fastcgi_cache_purge Z $scheme$host$1$is_args$args; }
    location /gz/   { fastcgi_pass {{FPM}}; gzip on; gzip_min_length 1; }
}
`

// TestFastCGICachePurge drives the three purge forms, the addresses the
// method form allows, prefix purges, and a cache directory removed while
// serving.
func TestFastCGICachePurge(t *testing.T) {
	e := newEnv(t)
	cachePHPFiles(t, e, cachePHP)
	testCachePurge(t, e, cachePurgeConf, "fastcgi")
}

// testCachePurge is TestFastCGICachePurge's sequence for conf, whose
// directives are module's.
func testCachePurge(t *testing.T, e *env, conf, module string) {
	cacheDir := filepath.Join(t.TempDir(), "cache")
	port := testenv.FreePort(t)
	prefix := testenv.EdgePrefix(t)
	addr := testenv.StartEdge(t, testenv.EdgeOptions{Prefix: prefix, Global: "daemon off;", Ports: []int{port},
		Conf: edgeConf(prefix, strings.ReplaceAll(e.render(conf, port), "{{CACHE}}", cacheDir), e.mime)}).Addr()
	do := func(method, target string, hdrs ...string) (int, string, string) {
		t.Helper()
		r, err := testenv.DoRaw(addr, requestText(method, target, "HTTP/1.1", "", hdrs))
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		return r.Status, r.Header.Get("X-Cache"), string(r.Body)
	}
	type want struct {
		method, target string
		hdrs           []string
		status         int
		cache          string
		body           string // a substring
	}
	steps := []want{
		{"GET", "/m/?id=a", nil, 200, "MISS", "n=1"},
		{"GET", "/m/?id=a", nil, 200, "HIT", "n=1"},
		{"PURGE", "/m/?id=a", nil, 200, "", "Successful purge"},
		{"GET", "/m/?id=a", nil, 200, "MISS", "n=2"},
		{"PURGE", "/m/?id=a", nil, 200, "", "Key : httplocalhost/m/?id=a"},
		{"PURGE", "/m/?id=a", nil, 404, "", ""},
		{"GET", "/far/?id=f", nil, 200, "MISS", "n=1"},
		{"PURGE", "/far/?id=f", nil, 403, "", "403 Forbidden"},
		{"GET", "/far/?id=f", nil, 200, "HIT", "n=1"},
		{"GET", "/plus/?id=p", nil, 200, "MISS", "n=1"},
		{"GET", "/plus/?id=p", []string{"X-Purge: 0"}, 200, "HIT", "n=1"},
		{"GET", "/plus/?id=p", []string{"X-Purge: 1"}, 204, "", ""},
		{"GET", "/plus/?id=p", nil, 200, "MISS", "n=2"},
		{"GET", "/m/?id=b", nil, 200, "MISS", "id=b n=1"},
		{"GET", "/purge/m/", []string{}, 404, "", ""},
		{"GET", "/purge/m/?id=b", nil, 200, "", "Successful purge"},
		{"GET", "/m/?id=b", nil, 200, "MISS", "id=b n=2"},
		{"GET", "/m/?id=c", nil, 200, "MISS", "id=c n=1"},
		{"GET", "/purge/m/*", nil, 200, "", "Key : httplocalhost/m/*"},
		{"GET", "/m/?id=b", nil, 200, "MISS", "id=b n=3"},
		{"GET", "/m/?id=c", nil, 200, "MISS", "id=c n=2"},
	}
	for _, s := range steps {
		status, xc, body := do(s.method, s.target, s.hdrs...)
		if status != s.status || xc != s.cache || !strings.Contains(body, s.body) {
			t.Errorf("%s %s %v: got %d %q %q, want %d %q and a body with %q", s.method, s.target, s.hdrs, status, xc, body, s.status, s.cache, s.body)
		}
	}
	// The directory removed while serving: a MISS served all the same,
	// whose fill makes it again.
	for i, wantCache := range []string{"MISS", "HIT", "MISS", "HIT"} {
		if i == 2 {
			if err := os.RemoveAll(cacheDir); err != nil {
				t.Fatal(err)
			}
		}
		status, xc, body := do("GET", "/m/?id=gone")
		if status != 200 || xc != wantCache || !strings.Contains(body, "id=gone") {
			t.Errorf("after the cache directory went, request %d: %d %q %q, want 200 %s", i+1, status, xc, body, wantCache)
		}
	}

	// A gzip HIT sends the variant stored in the entry's file, framed as
	// nginx frames what its gzip filter makes: chunked, with no
	// Content-Length. (That it is not compressed again,
	// TestCacheHitFromMemory shows in the pipeline.)
	for i, wantCache := range []string{"MISS", "HIT"} {
		r, err := testenv.DoRaw(addr, requestText("GET", "/gz/?id=gz", "HTTP/1.1", "", []string{"Accept-Encoding: gzip"}))
		if err != nil {
			t.Fatal(err)
		}
		if r.Header.Get("X-Cache") != wantCache || r.Header.Get("Content-Encoding") != "gzip" ||
			!strings.Contains(string(gunzipped(r)), "id=gz n=1") {
			t.Errorf("gzip request %d: %s %q %q", i+1, r.Header.Get("X-Cache"), r.Header.Get("Content-Encoding"), gunzipped(r))
		}
		if r.Header.Get("Content-Length") != "" || !slices.Equal(r.TransferEncoding, []string{"chunked"}) {
			t.Errorf("gzip request %d: Content-Length %q, Transfer-Encoding %v; want nginx's chunked gzip",
				i+1, r.Header.Get("Content-Length"), r.TransferEncoding)
		}
		if wantCache == "HIT" && !entryHolds(t, cacheDir, r.Body) {
			t.Errorf("the gzip HIT's %d bytes are in no entry file", len(r.Body))
		}
	}

	// A file where the cache directory should be: every request is
	// served uncached, and the failure is logged at [crit] once.
	if err := os.RemoveAll(cacheDir); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cacheDir, "not a directory", 0o644)
	for i := 0; i < 3; i++ {
		status, xc, body := do("GET", "/m/?id=blocked")
		if status != 200 || xc != "MISS" || !strings.Contains(body, "id=blocked n="+strconv.Itoa(i+1)) {
			t.Errorf("with the cache directory a file, request %d: %d %q %q, want 200 MISS", i+1, status, xc, body)
		}
	}
	logText, err := os.ReadFile(filepath.Join(prefix, "logs", "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(logText), "[crit]"); n != 1 {
		t.Errorf("the unwritable cache logged %d [crit] lines, want 1:\n%s", n, logText)
	}

	// edge -t warns when a caching location replays Set-Cookie.
	valid := module + "_cache_valid 1m;"
	out, ok := e.edgeTest(t, strings.ReplaceAll(strings.Replace(conf, valid, valid+" "+module+"_ignore_headers Set-Cookie;", 1), "{{CACHE}}", cacheDir))
	if !ok || !strings.Contains(out, "[warn]") || !strings.Contains(out, "Set-Cookie is sent to every visitor") {
		t.Errorf("edge -t with %s_ignore_headers Set-Cookie: ok=%v\n%s", module, ok, out)
	}
}

// flood sends n concurrent GETs of target and counts their answers by
// X-Cache and PHP's counter ("HIT n=1").
func flood(addr, target string, n int) map[string]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := map[string]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := testenv.DoRaw(addr, requestText("GET", target, "HTTP/1.1", "", nil))
			mu.Lock()
			defer mu.Unlock()
			if f := strings.Fields(string(gunzippedOrEmpty(r, err))); len(f) > 1 {
				count[r.Header.Get("X-Cache")+" "+f[1]]++
				return
			}
			count["error"]++
		}()
	}
	wg.Wait()
	return count
}

func gunzippedOrEmpty(r *testenv.RawResponse, err error) []byte {
	if err != nil {
		return nil
	}
	return gunzipped(r)
}

func mapKeys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// entryHolds reports whether a cache entry file under dir holds b.
func entryHolds(t *testing.T, dir string, b []byte) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		data, err := os.ReadFile(path)
		found = err == nil && bytes.Contains(data, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
