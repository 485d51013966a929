// Package servetest serves a plan on a real Server (proxy/listen) over
// loopback for the tests of the adapters and the listener. Tests only.
package servetest

import (
	"net"
	"testing"

	"edge/conf"
	"edge/proxy/internal/plantest"
	"edge/proxy/listen"
)

// Start serves a plan whose one listen is 127.0.0.1:8080 on a free port
// instead, until the test ends, and returns the Server and the address.
func Start(tb testing.TB, plan *conf.Plan) (*listen.Server, string) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := listen.NewServer(listen.Options{ErrorLog: plantest.SilentLog(), Listeners: map[string]net.Listener{"tcp 127.0.0.1:8080": ln}})
	if err := s.Apply(plan); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, ln.Addr().String()
}

// Serve is Start without the Server.
func Serve(tb testing.TB, plan *conf.Plan) string {
	tb.Helper()
	_, addr := Start(tb, plan)
	return addr
}

// Config serves a server{} block with locations, listening on
// 127.0.0.1:8080 in its config, on a free port, and returns its address.
func Config(tb testing.TB, locations string) string {
	tb.Helper()
	plan := plantest.Load(tb, tb.TempDir(), `error_log stderr emerg;
events {}
http {
    access_log off;
    server {
        listen 127.0.0.1:8080;
        `+locations+`
    }
}
`)
	return Serve(tb, plan)
}
