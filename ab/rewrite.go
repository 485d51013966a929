// This file makes one server's copy of the site's configuration: every
// listen address moved to a free loopback port, every fastcgi_pass (and
// the upstream{} servers it names) pointed at the harness's php-fpm, logs
// temp files and cache directories under that server's own directory
// (edge and nginx write different cache files), relative paths made
// absolute, and worker_processes set to the CPUs the server is pinned to.
// Everything else is the user's text, unchanged. nginx gets its copy
// through "edge -T --nginx" (see nginxConfig).

package ab

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"edge/conf"
)

// sideConfig says how one server's copy differs from the site.
type sideConfig struct {
	// Ports maps listen keys (see listenKey) to loopback ports.
	Ports map[string]int
	// Workers is worker_processes.
	Workers int
	// FastCGI replaces every fastcgi_pass address ("unix:/path"); "" keeps them.
	FastCGI string
	// LogDir receives every log file, absolute.
	LogDir string
	// CacheDir holds every cache path (fastcgi_cache_path,
	// proxy_cache_path), one directory per keys zone, absolute.
	CacheDir string
	// Prefix and ConfDir resolve relative paths (see Site).
	Prefix, ConfDir string
}

// mainDropped are main-context directives the harness sets itself
// (worker_processes, and daemon/master_process/pid on the command line)
// or that would fight its CPU pinning.
var mainDropped = map[string]bool{
	"daemon": true, "master_process": true, "pid": true, "worker_processes": true,
	"user": true, "worker_cpu_affinity": true, "lock_file": true,
}

// tempPathDirectives point outside the prefix by default (Debian:
// /var/lib/nginx); the user's are dropped and nginx gets its own (see
// nginxTemps).
var tempPathDirectives = []string{"client_body_temp_path", "proxy_temp_path",
	"fastcgi_temp_path", "uwsgi_temp_path", "scgi_temp_path"}

// prefixPathDirectives take a path relative to the prefix; confPathDirectives
// one relative to the configuration's directory, as in nginx.
var (
	prefixPathDirectives = map[string]bool{"root": true, "alias": true}
	confPathDirectives   = map[string]bool{"ssl_certificate": true, "ssl_certificate_key": true,
		"ssl_trusted_certificate": true, "ssl_client_certificate": true, "ssl_dhparam": true,
		"ssl_password_file": true, "ssl_session_ticket_key": true, "ssl_stapling_file": true,
		"ssl_crl": true}
)

// rewriter holds the state of one rewrite.
type rewriter struct {
	sc sideConfig
	// fastcgiUpstreams are the upstream{} blocks fastcgi_pass refers to.
	fastcgiUpstreams map[string]bool
	// logs maps a log path as written to its file under LogDir.
	logs map[string]string
	// defaults records the addresses that already have a default_server.
	defaults map[string]bool
}

// rewriteSite returns the side's copy of the main context.
func rewriteSite(main []*conf.Directive, sc sideConfig) []*conf.Directive {
	rw := &rewriter{sc: sc, fastcgiUpstreams: map[string]bool{}, logs: map[string]string{},
		defaults: map[string]bool{}}
	upstreams := map[string]bool{}
	walk(main, func(d *conf.Directive) {
		if d.Name == "upstream" && d.HasBlock {
			upstreams[firstArg(d)] = true
		}
	})
	walk(main, func(d *conf.Directive) {
		if d.Name == "fastcgi_pass" && len(d.Args) == 1 && upstreams[d.Args[0]] {
			rw.fastcgiUpstreams[d.Args[0]] = true
		}
	})
	var out []*conf.Directive
	if os.Geteuid() == 0 {
		// As root, nginx's workers would run as nobody and could not read
		// a docroot under a private directory.
		out = append(out, &conf.Directive{Name: "user", Args: []string{"root"}})
	}
	out = append(out, &conf.Directive{Name: "worker_processes", Args: []string{strconv.Itoa(max(sc.Workers, 1))}})
	hasEvents := false
	for _, d := range main {
		if mainDropped[d.Name] {
			continue
		}
		if d.Name == "events" {
			hasEvents = true
		}
		if c := rw.directive(d, ""); c != nil {
			out = append(out, c)
		}
	}
	if !hasEvents {
		out = append(out, &conf.Directive{Name: "events", HasBlock: true})
	}
	return out
}

// walk calls fn for every directive, depth first.
func walk(list []*conf.Directive, fn func(*conf.Directive)) {
	for _, d := range list {
		fn(d)
		walk(d.Block, fn)
	}
}

// directive returns the rewritten copy of d (nil to drop it); parent is
// the enclosing block's name.
func (rw *rewriter) directive(d *conf.Directive, parent string) *conf.Directive {
	switch {
	case d.Name == "fpm_pool" || d.Name == "fpm_status":
		// The harness runs each server's pool; fastcgi_pass to a pool's
		// name goes to it, and there is no pool to report on.
		return nil
	case isTempPath(d.Name):
		return nil
	}
	c := &conf.Directive{Name: d.Name, Args: append([]string(nil), d.Args...), File: d.File, Line: d.Line, HasBlock: d.HasBlock}
	switch {
	case d.Name == "server" && d.HasBlock && parent == "http":
		c.Block = rw.server(d.Block)
		return c
	case d.Name == "upstream" && d.HasBlock && rw.fastcgiUpstreams[firstArg(d)] && rw.sc.FastCGI != "":
		c.Block = rw.upstream(d.Block)
		return c
	case d.Name == "fastcgi_pass" && len(c.Args) == 1 && rw.sc.FastCGI != "" && !rw.fastcgiUpstreams[c.Args[0]]:
		c.Args[0] = rw.sc.FastCGI
	case d.Name == "access_log" || d.Name == "error_log":
		rw.logPath(c)
	case (d.Name == "fastcgi_cache_path" || d.Name == "proxy_cache_path") && len(c.Args) > 0 && rw.sc.CacheDir != "":
		c.Args[0] = filepath.Join(rw.sc.CacheDir, cacheDirName(c))
	case prefixPathDirectives[d.Name] && len(c.Args) > 0:
		c.Args[0] = absolute(c.Args[0], rw.sc.Prefix)
	case confPathDirectives[d.Name] && len(c.Args) > 0:
		c.Args[0] = absolute(c.Args[0], rw.sc.ConfDir)
	}
	for _, child := range d.Block {
		if cc := rw.directive(child, d.Name); cc != nil {
			c.Block = append(c.Block, cc)
		}
	}
	return c
}

func firstArg(d *conf.Directive) string {
	if len(d.Args) == 0 {
		return ""
	}
	return d.Args[0]
}

func isTempPath(name string) bool {
	for _, t := range tempPathDirectives {
		if name == t {
			return true
		}
	}
	return false
}

// server rewrites a server{} block's listen directives: each address moves
// to its loopback port; two that land on the same port in one server
// become one; default_server stays only on the first server that claims
// an address; ipv6only no longer applies.
func (rw *rewriter) server(block []*conf.Directive) []*conf.Directive {
	var out []*conf.Directive
	seen := map[string]bool{}
	for _, d := range block {
		if d.Name != "listen" || len(d.Args) == 0 {
			if c := rw.directive(d, "server"); c != nil {
				out = append(out, c)
			}
			continue
		}
		key := listenKey(d.Args[0])
		port, ok := rw.sc.Ports[key]
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		args := []string{"127.0.0.1:" + strconv.Itoa(port)}
		for _, a := range d.Args[1:] {
			switch {
			case strings.HasPrefix(a, "ipv6only="):
				continue
			case a == "default_server" || a == "default":
				if rw.defaults[key] {
					continue
				}
				rw.defaults[key] = true
			}
			args = append(args, a)
		}
		out = append(out, &conf.Directive{Name: "listen", Args: args, File: d.File, Line: d.Line})
	}
	return out
}

// upstream replaces the servers of an upstream{} that fastcgi_pass uses
// with the harness's pool, keeping its other directives (keepalive, ...).
func (rw *rewriter) upstream(block []*conf.Directive) []*conf.Directive {
	out := []*conf.Directive{{Name: "server", Args: []string{rw.sc.FastCGI}}}
	for _, d := range block {
		if d.Name == "server" {
			continue
		}
		if c := rw.directive(d, "upstream"); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// logPath moves a log file under LogDir: the first access log is
// access.log, the next access-2.log, and so on; "off", stderr and syslog
// stay as written.
func (rw *rewriter) logPath(c *conf.Directive) {
	if len(c.Args) == 0 {
		return
	}
	p := c.Args[0]
	if p == "off" || p == "stderr" || strings.HasPrefix(p, "syslog:") || strings.HasPrefix(p, "memory:") {
		return
	}
	kind := strings.TrimSuffix(c.Name, "_log")
	if mapped, ok := rw.logs[kind+"\x00"+p]; ok {
		c.Args[0] = mapped
		return
	}
	n := 1
	for k := range rw.logs {
		if strings.HasPrefix(k, kind+"\x00") {
			n++
		}
	}
	name := kind + ".log"
	if n > 1 {
		name = fmt.Sprintf("%s-%d.log", kind, n)
	}
	mapped := filepath.Join(rw.sc.LogDir, name)
	rw.logs[kind+"\x00"+p] = mapped
	c.Args[0] = mapped
}

// cacheDirName names a cache path's directory under CacheDir by its keys
// zone (zone names are unique in a configuration), or by its position in
// the file when it names none (an error both servers report).
func cacheDirName(c *conf.Directive) string {
	for _, a := range c.Args[1:] {
		if z, ok := strings.CutPrefix(a, "keys_zone="); ok {
			name, _, _ := strings.Cut(z, ":")
			if name != "" && !strings.ContainsAny(name, "/\x00") && name != "." && name != ".." {
				return c.Name + "-" + name
			}
		}
	}
	return fmt.Sprintf("%s-line%d", c.Name, c.Line)
}

// absolute resolves a relative path against dir; values with variables or
// "data:" are left as written.
func absolute(p, dir string) string {
	if p == "" || filepath.IsAbs(p) || strings.Contains(p, "$") || strings.HasPrefix(p, "data:") {
		return p
	}
	return filepath.Join(dir, p)
}

// nginxTemps returns the http-level temp path directives for nginx, under
// dir.
func nginxTemps(dir string) string {
	var b strings.Builder
	for _, t := range tempPathDirectives {
		fmt.Fprintf(&b, "    %s %s;\n", t, filepath.Join(dir, strings.TrimSuffix(t, "_path")))
	}
	return b.String()
}

// insertIntoHTTP adds lines at the top of the http{} block of text
// written by conf.Format (which starts the block on a line of its own).
func insertIntoHTTP(text, lines string) (string, error) {
	const open = "\nhttp {\n"
	i := strings.Index(text, open)
	if i < 0 {
		if !strings.HasPrefix(text, open[1:]) {
			return "", fmt.Errorf("ab: no http{} block in the configuration edge dumped")
		}
		return open[1:] + lines + text[len(open)-1:], nil
	}
	i += len(open)
	return text[:i] + lines + text[i:], nil
}
