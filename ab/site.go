// This file holds the site both servers run: either the user's
// configuration (-c) or the built-in one, which covers the seeds'
// scenarios with their tuning (seed 000's gzip and worker settings, seed
// 003's files and certificates, seed 004's keepalive_timeout, asset
// expiry and WordPress rules). It finds the site's endpoints (the server{}
// each scenario targets) and puts the harness's test files in their
// docroots.

package ab

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"edge/conf"
)

// Site is a configuration before it is given ports and a php-fpm socket.
type Site struct {
	// Path is the main configuration file.
	Path string
	// Tree is the parsed configuration, includes expanded in place.
	Tree *conf.Tree
	// Prefix is where relative root/alias paths resolve (edge's -p);
	// ConfDir is where relative certificate paths resolve (the main
	// file's directory), as in nginx.
	Prefix, ConfDir string
	// Endpoints are the server{} blocks scenarios target.
	Endpoints map[Endpoint]SiteEndpoint
	// Builtin is true for the built-in site.
	Builtin bool
}

// SiteEndpoint is one server{} the harness sends requests to.
type SiteEndpoint struct {
	// Listen is the listen key (see listenKey) of the address.
	Listen string
	TLS    bool
	HTTP2  bool
	// Host is the Host header (and :authority) requests carry.
	Host string
	// Docroot is where the server finds the harness's test files.
	Docroot string
	// KeyType is the certificate's key ("ECDSA P-256", "RSA 2048").
	KeyType string
}

// builtinPorts are the listen keys of the built-in site. They are only
// names: every listen gets a free loopback port per server.
const (
	builtinHTTP      = "8080"
	builtinHTTPS     = "8443"
	builtinHTTPSRSA  = "8444"
	builtinWordPress = "8081"
	// builtinWordPressCached serves the same WordPress through the
	// page cache.
	builtinWordPressCached = "8082"
)

// cacheZone is the built-in site's fastcgi_cache zone; the harness moves
// its directory under each server's own (see rewriteSite), since edge
// and nginx do not share cache files.
const cacheZone = "AB"

// builtinConfig writes the built-in site for docroot (and wordpress when
// not ""), with the given certificates. It is nginx's language and nginx
// 1.22's dialect ("listen ... http2"), so "edge -T --nginx" hands nginx
// the same text.
func builtinConfig(docroot, wordpress, backend string, ecdsa, rsa certPair) string {
	var b strings.Builder
	b.WriteString(`# edge ab's built-in site: the seeds' tuned nginx setup.
worker_processes auto;
events {
    worker_connections 4096;
}
http {
    include mime.types;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    # seed 004
    keepalive_timeout 6;
    # seed 000
    gzip on;
    gzip_min_length 1000;
    gzip_types text/plain text/css application/javascript application/xml;
    # The access log buffered, so neither server writes a line per request.
    access_log logs/access.log combined buffer=64k flush=1s;
    # What edge does by default, given to nginx (equivalents.go):
    # file metadata cached and checked every second, as edge's file cache;
    open_file_cache max=10000 inactive=60s;
    open_file_cache_valid 1s;
    open_file_cache_errors on;
    # FastCGI connections kept open, as edge keeps them: one idle
    # connection, edge's own bound for a bare address. A php-fpm worker
    # serves one connection for as long as it stays open, so more idle
    # connections than workers pin every worker and the next request
    # waits (with keepalive 16 and 4 workers edge stalled and nginx's p99
    # reached 3 s).
    fastcgi_keep_conn on;
    upstream php {
        server 127.0.0.1:9000;
        keepalive 1;
    }
    # issue 16: the page cache of the cached-page scenarios, keyed as
    # docs/cache.md's WordPress recipe keys it
    fastcgi_cache_path cache/ab levels=1:2 keys_zone=AB:10m inactive=1h;
    fastcgi_cache_key "$scheme$request_method$host$request_uri";
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:SSL:10m;
    ssl_session_timeout 10m;
`)
	if backend != "" {
		b.WriteString(proxyConfig(backend))
	}
	site := func(listen, root, certs string, cached bool) {
		fmt.Fprintf(&b, "\n    server {\n        listen %s;\n        server_name localhost;\n", listen)
		b.WriteString(certs)
		fmt.Fprintf(&b, "        root %s;\n        index index.php index.html;\n", root)
		b.WriteString(`        location / {
            try_files $uri $uri/ =404;
        }
`)
		if cached {
			b.WriteString(cachedPageLocations)
			if backend != "" {
				b.WriteString(proxyLocation())
			}
		}
		b.WriteString(`        # seed 004: assets cached 30 days, not logged
        location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml)$ {
            access_log off;
            log_not_found off;
            expires 30d;
        }
        location ~ \.php$ {
            try_files $uri =404;
            fastcgi_pass php;
            fastcgi_index index.php;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            include fastcgi_params;
        }
    }
`)
	}
	tlsLines := func(p certPair) string {
		return fmt.Sprintf("        ssl_certificate %s;\n        ssl_certificate_key %s;\n", p.Cert, p.Key)
	}
	site(builtinHTTP+" default_server", docroot, "", true)
	site(builtinHTTPS+" ssl http2 default_server", docroot, tlsLines(ecdsa), false)
	site(builtinHTTPSRSA+" ssl http2 default_server", docroot, tlsLines(rsa), false)
	if wordpress != "" {
		wordpressServer(&b, builtinWordPress, wordpress, false)
		wordpressServer(&b, builtinWordPressCached, wordpress, true)
	}
	b.WriteString("}\n")
	return b.String()
}

// cachedPageLocations are the plain server's locations of the
// cached-page scenarios: the 45 KB page through fastcgi_cache, at gzip
// level 1 and 6. X-Cache shows $upstream_cache_status, which the harness
// reads to see that it times HITs.
var cachedPageLocations = func() string {
	var b strings.Builder
	for _, l := range []struct {
		file  string
		level int
	}{{pageCached, 1}, {pageCachedGz6, 6}} {
		fmt.Fprintf(&b, `        # issue 16: nginx compresses every HIT for a client that takes
        # gzip; edge stores the compressed variant once
        location = /%s/%s {
            fastcgi_pass php;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            include fastcgi_params;
            fastcgi_cache %s;
            fastcgi_cache_valid 200 1h;
            gzip_comp_level %d;
            add_header X-Cache $upstream_cache_status;
        }
`, testDir, l.file, cacheZone, l.level)
	}
	return b.String()
}()

// wordpressServer writes seed 004's WordPress server, unchanged but for
// fastcgi_pass naming the upstream above (whose connections are kept as
// edge keeps them); cached adds docs/cache.md's recipe: the page cache
// with WordOps' skip rules, so anonymous visitors get cached pages.
func wordpressServer(b *strings.Builder, listen, root string, cached bool) {
	fmt.Fprintf(b, `
    # seed 004's WordPress server
    server {
        listen %s default_server;
        server_name localhost;
        root %s;
        index index.php;
        location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml)$ {
            access_log off;
            log_not_found off;
            expires 30d;
        }
        if (!-e $request_filename) {
            rewrite /(.+)/$ /index.php?q=$1 last;
            rewrite ^/(.+)$ /index.php?q=$1 last;
        }
`, listen, root)
	if cached {
		b.WriteString(`        # docs/cache.md's WordPress recipe: never cache for a POST, a
        # query string, the admin or a visitor with a login, commenter
        # or cart cookie
        set $skip_cache 0;
        if ($request_method = POST) {
            set $skip_cache 1;
        }
        if ($query_string != "") {
            set $skip_cache 1;
        }
        if ($request_uri ~* "/wp-admin/|/xmlrpc.php|wp-.*\.php|/feed/|index\.php|sitemap(_index)?\.xml|/wp-json/|/cart/|/checkout/|/my-account/|/wc-api/") {
            set $skip_cache 1;
        }
        if ($http_cookie ~* "comment_author|wordpress_[a-f0-9]+|wp-postpass|wordpress_no_cache|wordpress_logged_in|woocommerce_items_in_cart|woocommerce_cart_hash|edd_items_in_cart") {
            set $skip_cache 1;
        }
`)
	}
	b.WriteString(`        location ~ \.php$ {
            fastcgi_pass php;
            fastcgi_index index.php;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
            include fastcgi_params;
`)
	if cached {
		fmt.Fprintf(b, `            fastcgi_cache %s;
            fastcgi_cache_valid 200 1h;
            fastcgi_cache_bypass $skip_cache;
            fastcgi_no_cache $skip_cache;
            add_header X-Cache $upstream_cache_status;
`, cacheZone)
	}
	b.WriteString("        }\n    }\n")
}

// readConfFile reads configuration files, falling back to edge's copies
// of mime.types and fastcgi_params as edge itself does.
func readConfFile(path string) ([]byte, error) {
	data, _, err := conf.ReadFileWithBuiltins(path)
	return data, err
}

// loadSite parses and compiles the configuration at path with edge's own
// loader, so the harness sees what edge will serve.
func loadSite(path, prefix string) (*Site, *conf.Plan, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("ab: %w", err)
	}
	if prefix == "" {
		prefix = filepath.Dir(abs)
	}
	prefix, _ = filepath.Abs(prefix)
	plan, err := conf.Load(abs, conf.LoadOptions{Prefix: prefix, ReadFile: readConfFile})
	if err != nil {
		return nil, nil, fmt.Errorf("ab: %s: %w", abs, err)
	}
	if plan.HTTP == nil {
		return nil, nil, fmt.Errorf("ab: %s has no http{} block", abs)
	}
	return &Site{Path: abs, Tree: plan.Tree, Prefix: prefix, ConfDir: filepath.Dir(abs),
		Endpoints: map[Endpoint]SiteEndpoint{}}, plan, nil
}

// builtinSite writes the built-in configuration, its certificates and its
// docroot under dir and loads it.
func builtinSite(dir, wordpress, backend string) (*Site, error) {
	docroot := filepath.Join(dir, "www")
	if err := os.MkdirAll(docroot, 0o755); err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	if err := os.WriteFile(filepath.Join(docroot, "index.html"), []byte("<!doctype html><title>edge ab</title><p>edge ab's built-in site\n"), 0o644); err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	ecdsa, err := writeSelfSigned(dir, "ecdsa", "ecdsa")
	if err != nil {
		return nil, err
	}
	rsa, err := writeSelfSigned(dir, "rsa", "rsa")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "site.conf")
	if err := os.WriteFile(path, []byte(builtinConfig(docroot, wordpress, backend, ecdsa, rsa)), 0o644); err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	site, plan, err := loadSite(path, dir)
	if err != nil {
		return nil, err
	}
	site.Builtin = true
	roles := []struct {
		ep     Endpoint
		listen string
	}{{EndpointHTTP, builtinHTTP}, {EndpointHTTPS, builtinHTTPS}, {EndpointHTTPSRSA, builtinHTTPSRSA}}
	if wordpress != "" {
		roles = append(roles, []struct {
			ep     Endpoint
			listen string
		}{{EndpointWordPress, builtinWordPress}, {EndpointWordPressCached, builtinWordPressCached}}...)
	}
	for _, r := range roles {
		for _, g := range plan.HTTP.Listens {
			if planListenKey(g.Listen) == r.listen {
				site.Endpoints[r.ep] = endpointOf(g, site.Prefix)
			}
		}
	}
	return site, nil
}

// userSite loads the user's configuration and picks its endpoints: the
// default server of the first plain listen address and of the first TLS
// one. Its certificate's key type names the CPS scenario it serves.
func userSite(path, prefix string) (*Site, error) {
	site, plan, err := loadSite(path, prefix)
	if err != nil {
		return nil, err
	}
	for _, g := range plan.HTTP.Listens {
		if g.Listen.Network != "tcp" {
			continue
		}
		ep := EndpointHTTP
		if g.Listen.SSL {
			ep = EndpointHTTPS
		}
		if _, ok := site.Endpoints[ep]; ok {
			continue
		}
		e := endpointOf(g, site.Prefix)
		if ep == EndpointHTTPS && strings.HasPrefix(e.KeyType, "RSA") {
			// The RSA CPS scenario is the one this server can serve.
			site.Endpoints[EndpointHTTPSRSA] = e
		}
		site.Endpoints[ep] = e
	}
	if len(site.Endpoints) == 0 {
		return nil, fmt.Errorf("ab: %s listens on no TCP address", site.Path)
	}
	return site, nil
}

// endpointOf describes the default server of a listen group.
func endpointOf(g *conf.ListenGroup, prefix string) SiteEndpoint {
	srv := g.Default
	e := SiteEndpoint{Listen: planListenKey(g.Listen), TLS: g.Listen.SSL,
		HTTP2: g.Listen.HTTP2 || srv.HTTP2, Host: "localhost"}
	for _, n := range srv.Names {
		if n.Kind == conf.NameExact && n.Name != "" && n.Name != "_" {
			e.Host = n.Name
			break
		}
	}
	e.Docroot = docrootOf(srv, prefix)
	if srv.TLS != nil && len(srv.TLS.Certificates) > 0 {
		e.KeyType = srv.TLS.Certificates[0].KeyType
	}
	return e
}

// docrootOf is the root that serves "/": the root of "location /" when it
// sets one, else the server's. A root with variables cannot hold the
// harness's files and is returned as written; creating the files reports it.
func docrootOf(srv *conf.Server, prefix string) string {
	loc := srv.Loc
	for _, l := range loc.Prefixes {
		if l.Name == "/" && l.Root != nil {
			loc = l
		}
	}
	if loc.Root == nil {
		return filepath.Join(prefix, "html")
	}
	root := loc.Root.Raw
	if !filepath.IsAbs(root) && !strings.Contains(root, "$") {
		root = filepath.Join(prefix, root)
	}
	return root
}

// planListenKey is listenKey for a compiled listen address.
func planListenKey(l conf.Listen) string {
	if l.Network == "unix" {
		return "unix:" + l.Addr
	}
	_, port, err := net.SplitHostPort(l.Addr)
	if err != nil {
		return l.Addr
	}
	return port
}

// listenKey names the address of a listen directive's first argument by
// its port ("80" for "80", "*:80", "[::]:80" and "10.0.0.1:80"), since
// every address is moved to 127.0.0.1: dual-stack pairs become one.
// Unix sockets keep their path.
func listenKey(arg string) string {
	if strings.HasPrefix(arg, "unix:") {
		return arg
	}
	if strings.HasPrefix(arg, "[") {
		if i := strings.Index(arg, "]:"); i >= 0 {
			return arg[i+2:]
		}
		return "80"
	}
	if isPort(arg) {
		return arg
	}
	if i := strings.LastIndex(arg, ":"); i >= 0 {
		return arg[i+1:]
	}
	return "80"
}

// isPort reports a listen argument that is a bare port: decimal digits
// only (ParseUint in base 10 takes no sign and no underscores).
func isPort(s string) bool {
	_, err := strconv.ParseUint(s, 10, 64)
	return err == nil
}

// helloText is seed 004's 591-byte text file; hello.php sends the same
// bytes through PHP.
var helloText = func() string {
	line := "edge ab: seed 004's hello, 591 bytes served as a file and through PHP.\n"
	var b strings.Builder
	for b.Len()+len(line) <= 591 {
		b.WriteString(line)
	}
	b.WriteString(strings.Repeat("-", 590-b.Len()) + "\n")
	return b.String()
}()

// pageBytes is the size of the cached-page scenarios' page (issue 16's
// 45 KB).
const pageBytes = 45000

// pageHTML is a 45 KB HTML page that compresses as prose does (about 4:1
// with gzip), not as a run of one repeated line: words drawn from a
// fixed list by a fixed linear congruential sequence, so the page is the
// same in every run.
var pageHTML = func() string {
	words := strings.Fields(`the server cache page request response header body client upstream
		worker process connection socket file memory disk entry key zone lock stale fresh update
		purge visitor cookie session login comment post theme plugin query string method status
		compress gzip level identity variant store hit miss bypass expired valid inactive manager
		loader level path name value time second minute hour day network address port proxy`)
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<title>edge ab: a cached page</title>\n<link rel=\"stylesheet\" href=\"/style.css\">\n</head>\n<body>\n")
	const tail = "</body>\n</html>\n"
	x := uint32(16)
	next := func() int { x = x*1664525 + 1013904223; return int(x >> 8) }
	for article := 1; ; article++ {
		var a strings.Builder
		fmt.Fprintf(&a, "<article id=\"post-%d\" class=\"post type-post status-publish\">\n<h2><a href=\"/%d/\">", article, article)
		for range 3 + next()%4 {
			a.WriteString(words[next()%len(words)] + " ")
		}
		a.WriteString("</a></h2>\n")
		for range 3 {
			a.WriteString("<p>")
			for w := range 40 + next()%30 {
				if w > 0 {
					a.WriteString(" ")
				}
				a.WriteString(words[next()%len(words)])
			}
			a.WriteString(".</p>\n")
		}
		a.WriteString("</article>\n")
		if b.Len()+a.Len()+len(tail) > pageBytes {
			break
		}
		b.WriteString(a.String())
	}
	b.WriteString("<!--" + strings.Repeat(" ", max(0, pageBytes-b.Len()-len(tail)-len("<!---->\n"))) + "-->\n")
	b.WriteString(tail)
	return b.String()
}()

// markerFile marks a test directory as the harness's, so it never
// removes a directory it did not create.
const markerFile = ".edge-ab"

// writeTestFiles creates docroot/edge-ab with seed 003's files (0, 1, 10
// and 100 KiB), hello.txt and hello.php. It returns a function that
// removes the directory again.
func writeTestFiles(docroot string) (func(), error) {
	if strings.Contains(docroot, "$") {
		return nil, fmt.Errorf("ab: the docroot %q holds variables; edge ab cannot place its test files there", docroot)
	}
	dir := filepath.Join(docroot, testDir)
	if _, err := os.Stat(dir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, markerFile)); err != nil {
			return nil, fmt.Errorf("ab: %s exists and is not edge ab's; move it away", dir)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ab: cannot create the test files in the docroot %s: %w", docroot, err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	files := map[string][]byte{
		markerFile:  nil,
		"hello.txt": []byte(helloText),
		// "?>" eats one newline after it; the text follows at once.
		"hello.php": []byte("<?php /* edge ab: seed 004's hello through PHP */ ?>" + helloText),
	}
	for _, name := range []string{pagePHP, pageCached, pageCachedGz6} {
		files[name] = []byte("<?php /* edge ab: issue 16's 45 KB page */ ?>" + pageHTML)
	}
	for _, s := range fileSizes {
		files[s.file()] = testBytes(s.bytes)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			cleanup()
			return nil, fmt.Errorf("ab: %w", err)
		}
	}
	return cleanup, nil
}

// testBytes is n bytes of printable, fixed content.
func testBytes(n int) []byte {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789\n"
	b := bytes.Repeat([]byte(alphabet), n/len(alphabet)+1)
	return b[:n]
}
