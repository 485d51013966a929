// This file prints -v, -V and -h the way nginx does, so tools that probe
// "nginx -V" for modules get a truthful answer about edge.
package main

import (
	"fmt"
	"os"
	"runtime"

	"edge/proxy"
)

// builtModules are nginx's configure switches for what edge implements;
// missing lists the modules nginx builds by default that edge does not
// have, as --without-... switches.
var builtModules = []string{
	"--with-http_ssl_module",
	"--with-http_v2_module",
	"--with-http_stub_status_module",
	"--with-http_gzip_static_module",
	"--with-pcre (PCRE2 10.42 syntax, run on Go's regexp and regexp2)",
	"--with-http_realip_module",
	"--add-module=ngx_brotli (filter and static, built in)",
}

var missingModules = []string{
	"--without-http_uwsgi_module",
	"--without-http_scgi_module",
	"--without-http_grpc_module",
	"--without-http_memcached_module",
	"--without-http_referer_module",
	"--without-http_userid_module",
	"--without-http_mirror_module",
	"--without-http_browser_module",
	"--without-http_upstream_hash_module",
	"--without-http_upstream_ip_hash_module",
	"--without-http_upstream_least_conn_module",
	"--without-http_upstream_random_module",
	"--without-http_empty_gif_module (empty_gif is built in)",
	"--without-mail",
	"--without-stream",
}

func printVersion(build bool) {
	fmt.Fprintf(os.Stderr, "nginx version: nginx/%s (edge/%s)\n", proxy.NginxVersion, proxy.Version)
	if !build {
		return
	}
	fmt.Fprintf(os.Stderr, "built with %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(os.Stderr, "TLS SNI support enabled\n")
	args := "configure arguments:"
	for _, m := range builtModules {
		args += " " + m
	}
	for _, m := range missingModules {
		args += " " + m
	}
	fmt.Fprintln(os.Stderr, args)
}

func printHelp() {
	fmt.Fprint(os.Stderr, `Usage: edge [-?hvVtTq] [-s signal] [-p prefix] [-e filename] [-c filename] [-g directives]
       edge ab|fpm|healthcheck|help ...

Options:
  -?,-h         : this help
  -v            : show version and exit
  -V            : show version and configure options then exit
  -t            : test configuration and exit
  -T            : test configuration, dump it and exit (add --nginx to leave out edge-only directives)
  -q            : suppress non-error messages during configuration testing
  -s signal     : send signal to a master process: stop, quit, reopen, reload
  -p prefix     : set prefix path (default: the configuration file's directory)
  -e filename   : set error log file (default: logs/error.log under the prefix)
  -c filename   : set configuration file (default: the built-in site for ./public)
  -g directives : set global directives out of configuration file

Without -c, edge serves ./public (or the current directory) on localhost.
`)
}
