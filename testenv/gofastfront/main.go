// Command gofastfront is the gofast baseline of the hello.php benchmark
// (testenv/fcgitest BenchmarkPHPHello): a net/http server that forwards
// every request to one PHP script through gofast v0.8.0 the way its README
// shows (NewHandler, NewFileEndpoint, SimpleClientFactory: a connection
// per request). It does less than edge (no config, no locations, no
// logs), so it is the most gofast could give edge. It is a test tool,
// never shipped.
package main

import (
	"flag"
	"log"
	"net/http"

	"github.com/yookoala/gofast"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to serve HTTP on")
	network := flag.String("network", "unix", "php-fpm's network: unix or tcp")
	address := flag.String("address", "", "php-fpm's socket path or host:port")
	script := flag.String("script", "", "the PHP script every request runs")
	flag.Parse()
	if *address == "" || *script == "" {
		log.Fatal("gofastfront: -address and -script are required")
	}
	connFactory := gofast.SimpleConnFactory(*network, *address)
	h := gofast.NewHandler(
		gofast.NewFileEndpoint(*script)(gofast.BasicSession),
		gofast.SimpleClientFactory(connFactory),
	)
	log.Fatal(http.ListenAndServe(*listen, h))
}
