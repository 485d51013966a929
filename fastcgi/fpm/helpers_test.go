// helpers_test.go holds what this package's tests share: the PHP scripts
// a supervised pool serves, and one request to them through edge's
// FastCGI client.
package fpm

import (
	"context"
	"net"
	"path/filepath"
	"time"

	"edge/conf"
	"edge/fastcgi"
)

// phpScripts are written into the pools' document root.
var phpScripts = map[string]string{
	"hello.php": `<?php echo "hello";`,
	"sleep.php": `<?php usleep((int)$_GET['us']); echo "slept";`,
}

// runScript sends "GET /script?query" to the pool, with the params a web
// server would pass for a script in root.
func runScript(ctx context.Context, p *conf.FPMPool, root, script, query string) (*fastcgi.Response, error) {
	c := &fastcgi.Client{Network: p.Network, Address: p.Address}
	req := &fastcgi.Request{}
	for _, kv := range [][2]string{
		{"GATEWAY_INTERFACE", "CGI/1.1"}, {"SERVER_PROTOCOL", "HTTP/1.1"}, {"REQUEST_METHOD", "GET"},
		{"DOCUMENT_ROOT", root}, {"SCRIPT_FILENAME", filepath.Join(root, script)}, {"SCRIPT_NAME", "/" + script},
		{"REQUEST_URI", "/" + script + "?" + query}, {"QUERY_STRING", query}, {"HTTP_HOST", "localhost"},
	} {
		req.Params.Add(kv[0], kv[1])
	}
	return c.Do(ctx, req)
}

// accepts reports whether the pool's socket accepts a connection.
func accepts(network, address string) bool {
	c, err := net.DialTimeout(network, address, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}
