// This file holds the scenarios: each names the seed it reproduces, the
// load generator that drives it, the site endpoint it targets and the
// request it repeats. Catalog lists them in report order; Select turns
// --scenarios into the list to run.

package ab

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Tool is the load generator of a scenario.
type Tool string

const (
	// ToolWrk is wrk: HTTP/1.1 keep-alive, requests/s and latency
	// percentiles (seed 003's tool).
	ToolWrk Tool = "wrk"
	// ToolH2load is h2load (nghttp2): HTTP/2 over TLS.
	ToolH2load Tool = "h2load"
	// ToolAb is ApacheBench, the tool of seed 004, without keep-alive.
	ToolAb Tool = "ab"
	// ToolConnect is edge ab's own client opening a new connection (and a
	// full TLS handshake, no session resumption) for every request: wrk
	// and h2load resume TLS sessions when they reconnect and ab is
	// single-threaded, so none of them measures seed 003's connections
	// per second.
	ToolConnect Tool = "connect"
	// ToolRamp is edge ab's own client raising the number of users
	// linearly, as Blitz.io did in seed 000.
	ToolRamp Tool = "ramp"
)

// Endpoint names a server{} of the site under test.
type Endpoint string

const (
	// EndpointHTTP is plain HTTP.
	EndpointHTTP Endpoint = "http"
	// EndpointHTTPS is TLS (with HTTP/2 offered by ALPN); in the
	// built-in site it has an ECDSA P-256 certificate.
	EndpointHTTPS Endpoint = "https"
	// EndpointHTTPSRSA is TLS with an RSA 2048 certificate (built-in site
	// only), for seed 003's RSA rows.
	EndpointHTTPSRSA Endpoint = "https-rsa"
	// EndpointWordPress serves the --wordpress docroot.
	EndpointWordPress Endpoint = "wordpress"
	// EndpointWordPressCached serves the same docroot through
	// fastcgi_cache with the WordOps-style skip rules of docs/cache.md
	// (built-in site only).
	EndpointWordPressCached Endpoint = "wordpress-cached"
)

// wordpress reports an endpoint that serves the --wordpress docroot.
func (e Endpoint) wordpress() bool {
	return e == EndpointWordPress || e == EndpointWordPressCached
}

// testDir is the directory the harness creates in a docroot for its test
// files; scenario paths start with it.
const testDir = "edge-ab"

// Scenario is one workload timed against both servers.
type Scenario struct {
	// Name is what --scenarios selects ("static-1k").
	Name string
	// Group selects several scenarios at once ("matrix").
	Group string
	// Title is the report's description.
	Title string
	// Seed is the seed article the scenario reproduces ("003").
	Seed string
	Tool Tool
	// Endpoint is the server{} the requests go to.
	Endpoint Endpoint
	// Path is the request target.
	Path string
	// Conns is the number of concurrent connections. Zero means 50. (A
	// ramp's users come from Options.RampUsers.)
	Conns int
	// Streams is h2load's -m (concurrent streams per connection).
	Streams int
	// PHP marks scenarios that need php-fpm.
	PHP bool
	// Header holds extra request header lines ("Accept-Encoding: gzip")
	// that every request carries, the check's included (wrk, h2load and
	// ab send them; the connect and ramp clients do not).
	Header []string
	// Cached marks a page served through fastcgi_cache (built-in site
	// only): before it is checked, both servers are asked for it until
	// they answer "X-Cache: HIT" ($upstream_cache_status), and again after
	// the rounds, so the timed requests are HITs.
	Cached bool
	// Baseline names the scenario this one is compared with on each
	// server (a gzip HIT against an identity HIT, a cached page against
	// the uncached one); see Comparison.
	Baseline string
	// Proxy marks a scenario served by proxy_pass from the harness's
	// own HTTP backend (built-in site only, backend.go).
	Proxy bool
	// Goal says which goal the scenario is held to (see Verdict).
	Goal Goal
}

// Goal is the performance goal a scenario is held to; every goal also
// asks for a p99 latency no higher than nginx's.
type Goal string

const (
	// GoalPerCPU: requests per CPU-second at least nginx's.
	GoalPerCPU Goal = "req/CPU-s >= nginx"
	// GoalNoErrors: no errors where nginx had none (the ramp).
	GoalNoErrors Goal = "no errors where nginx has none"
)

// conns is Conns with its default.
func (s Scenario) conns() int {
	if s.Conns > 0 {
		return s.Conns
	}
	return 50
}

// Catalog returns every scenario, in report order. Seed 003's matrix uses
// its four file sizes and 50 connections; seed 004's ab runs use its
// concurrency of 20 and its 591-byte text; seed 000's ramp rises to 250
// users.
func Catalog() []Scenario {
	var list []Scenario
	for _, size := range fileSizes {
		list = append(list, Scenario{Name: "static-" + size.name, Group: "matrix", Seed: "003",
			Title: size.label() + " file, HTTP/1.1 keep-alive", Tool: ToolWrk, Endpoint: EndpointHTTP,
			Path: "/" + testDir + "/" + size.file(), Goal: GoalPerCPU})
	}
	for _, size := range fileSizes {
		list = append(list, Scenario{Name: "https-" + size.name, Group: "matrix", Seed: "003",
			Title: size.label() + " file, HTTPS/1.1 keep-alive", Tool: ToolWrk, Endpoint: EndpointHTTPS,
			Path: "/" + testDir + "/" + size.file(), Goal: GoalPerCPU})
	}
	empty := "/" + testDir + "/" + fileSizes[0].file()
	list = append(list,
		Scenario{Name: "cps-http", Group: "cps", Seed: "003", Title: "new HTTP connection per request",
			Tool: ToolConnect, Endpoint: EndpointHTTP, Path: empty, Goal: GoalPerCPU},
		Scenario{Name: "cps-ecdsa", Group: "cps", Seed: "003", Title: "new TLS connection per request, ECDSA P-256",
			Tool: ToolConnect, Endpoint: EndpointHTTPS, Path: empty, Goal: GoalPerCPU},
		Scenario{Name: "cps-rsa", Group: "cps", Seed: "003", Title: "new TLS connection per request, RSA 2048",
			Tool: ToolConnect, Endpoint: EndpointHTTPSRSA, Path: empty, Goal: GoalPerCPU},
		Scenario{Name: "h2-1k", Group: "h2", Seed: "002", Title: "1 KiB file, HTTP/2 over TLS, 10 streams per connection",
			Tool: ToolH2load, Endpoint: EndpointHTTPS, Path: "/" + testDir + "/1k.bin", Conns: 50, Streams: 10, Goal: GoalPerCPU},
		Scenario{Name: "ab-text", Group: "ab", Seed: "004", Title: "591-byte text file, ab -c 20",
			Tool: ToolAb, Endpoint: EndpointHTTP, Path: "/" + testDir + "/hello.txt", Conns: 20, Goal: GoalPerCPU},
		Scenario{Name: "ab-php", Group: "ab", Seed: "004", Title: "591 bytes from PHP, ab -c 20",
			Tool: ToolAb, Endpoint: EndpointHTTP, Path: "/" + testDir + "/hello.php", Conns: 20, PHP: true, Goal: GoalPerCPU},
		Scenario{Name: "php-hello", Group: "php", Seed: "004", Title: "PHP hello through FastCGI, HTTP/1.1 keep-alive",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: "/" + testDir + "/hello.php", Conns: 50, PHP: true, Goal: GoalPerCPU},
	)
	list = append(list, cacheScenarios()...)
	list = append(list,
		Scenario{Name: "proxy-1k", Group: "proxy", Seed: "017", Title: "1 KiB response proxied from a keep-alive backend (upstream keepalive 32), HTTP/1.1 keep-alive",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: "/" + testDir + "/" + proxied1k, Conns: 50, Proxy: true, Goal: GoalPerCPU},
	)
	list = append(list,
		Scenario{Name: "wordpress", Group: "wordpress", Seed: "004", Title: "WordPress front page, HTTP/1.1 keep-alive",
			Tool: ToolWrk, Endpoint: EndpointWordPress, Path: "/", Conns: 20, PHP: true, Goal: GoalPerCPU},
		Scenario{Name: "wordpress-gzip", Group: "wordpress-cache", Seed: "004", Title: "WordPress front page, gzip accepted, HTTP/1.1 keep-alive",
			Tool: ToolWrk, Endpoint: EndpointWordPress, Path: "/", Conns: 20, PHP: true, Header: []string{acceptGzip}, Goal: GoalPerCPU},
		Scenario{Name: "wordpress-cached", Group: "wordpress-cache", Seed: "004", Title: "WordPress front page from fastcgi_cache, anonymous, gzip accepted",
			Tool: ToolWrk, Endpoint: EndpointWordPressCached, Path: "/", Conns: 20, PHP: true, Header: []string{acceptGzip},
			Cached: true, Baseline: "wordpress-gzip", Goal: GoalPerCPU},
		Scenario{Name: "ramp", Group: "ramp", Seed: "000", Title: "users rising from 1 to 250, PHP over HTTPS, new connection per hit",
			Tool: ToolRamp, Endpoint: EndpointHTTPS, Path: "/" + testDir + "/hello.php", PHP: true, Goal: GoalNoErrors},
	)
	return list
}

// acceptGzip is the header of a client that takes gzip.
const acceptGzip = "Accept-Encoding: gzip"

// The cached-page scenarios' files (see writeTestFiles and the built-in
// site's cache locations): the same 45 KB HTML page from PHP, uncached,
// cached with gzip_comp_level 1 and cached with level 6, the level tuned
// setups commonly write (issue 16 cites it as seed 002's; the seed's text
// here does not show it).
const (
	pagePHP       = "page.php"
	pageCached    = "page-cached.php"
	pageCachedGz6 = "page-cached-6.php"
)

// cacheScenarios are issue 16's cached-page workloads: a 45 KB page from
// PHP through fastcgi_cache, where nginx compresses every HIT again and
// edge sends the variant it stored compressed once.
func cacheScenarios() []Scenario {
	path := func(file string) string { return "/" + testDir + "/" + file }
	return []Scenario{
		{Name: "php-page", Group: "cache", Seed: "004", Title: "45 KB HTML page from PHP, uncached, HTTP/1.1 keep-alive",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: path(pagePHP), Conns: 50, PHP: true, Goal: GoalPerCPU},
		{Name: "cache-page", Group: "cache", Seed: "004", Title: "the 45 KB page from fastcgi_cache, no gzip asked for",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: path(pageCached), Conns: 50, PHP: true, Cached: true,
			Baseline: "php-page", Goal: GoalPerCPU},
		{Name: "cache-page-gzip1", Group: "cache", Seed: "000", Title: "the 45 KB page from fastcgi_cache, gzip accepted, gzip_comp_level 1",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: path(pageCached), Conns: 50, PHP: true, Header: []string{acceptGzip},
			Cached: true, Baseline: "cache-page", Goal: GoalPerCPU},
		{Name: "cache-page-gzip6", Group: "cache", Seed: "000", Title: "the 45 KB page from fastcgi_cache, gzip accepted, gzip_comp_level 6",
			Tool: ToolWrk, Endpoint: EndpointHTTP, Path: path(pageCachedGz6), Conns: 50, PHP: true, Header: []string{acceptGzip},
			Cached: true, Baseline: "cache-page", Goal: GoalPerCPU},
	}
}

// fileSize is one of seed 003's file sizes.
type fileSize struct {
	name  string // "1k"
	bytes int
}

func (f fileSize) file() string { return f.name + ".bin" }

// label is "1 KiB".
func (f fileSize) label() string { return fmt.Sprintf("%d KiB", f.bytes>>10) }

var fileSizes = []fileSize{{"0k", 0}, {"1k", 1 << 10}, {"10k", 10 << 10}, {"100k", 100 << 10}}

// Groups lists the group names in catalog order.
func Groups() []string {
	var out []string
	for _, s := range Catalog() {
		if !slices.Contains(out, s.Group) {
			out = append(out, s.Group)
		}
	}
	return out
}

// Select returns the catalog scenarios named by names (scenario names,
// group names, or "all"), in catalog order. An empty list selects every
// scenario except "wordpress" when wordpress is false.
func Select(names []string, wordpress bool) ([]Scenario, error) {
	all := Catalog()
	if len(names) == 0 {
		names = []string{"all"}
	}
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		known := n == "all"
		for _, s := range all {
			if s.Name == n || s.Group == n {
				known = true
			}
		}
		if !known {
			return nil, fmt.Errorf("ab: unknown scenario %q (scenarios: %s; groups: %s, all)",
				n, strings.Join(scenarioNames(all), ", "), strings.Join(Groups(), ", "))
		}
		want[n] = true
	}
	var out []Scenario
	for _, s := range all {
		explicit := want[s.Name] || want[s.Group]
		if !explicit && !want["all"] {
			continue
		}
		if s.Endpoint.wordpress() && !wordpress && !explicit {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("ab: no scenario selected")
	}
	return out, nil
}

func scenarioNames(list []Scenario) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// needsPHP reports whether any scenario needs php-fpm.
func needsPHP(list []Scenario) bool {
	return slices.ContainsFunc(list, func(s Scenario) bool { return s.PHP })
}

// rampUsers is the user count at time t of a ramp from 1 to users over d,
// rising linearly as Blitz.io's "-p 1-250:60" did.
func rampUsers(t, d time.Duration, users int) int {
	if users <= 1 || d <= 0 || t >= d {
		return max(users, 1)
	}
	return 1 + int(int64(users-1)*int64(t)/int64(d))
}
