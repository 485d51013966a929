// Package h2 is edge's HTTP/2. It holds two engines, picked once per
// process: edge's own (engine.go, engine_conn.go, engine_stream.go,
// engine_headers.go: one reader goroutine per connection, a goroutine per
// stream that writes its frames into the connection's pending buffer,
// no net/http types), the default; and golang.org/x/net/http2 serving
// one connection on net/http types (this file), kept as the fallback and
// the other side of A/B benchmarks (EDGE_H2_ENGINE=xnet). Beside them is
// the adapter between an engine and the pipeline (package proxy):
// http2.go turns each x/net stream into the engine-neutral
// proxy.Request, writes its Response and picks the settings below from
// the plan; h2guard.go applies nginx's limits to the frames either
// engine reads; h2write.go coalesces x/net's writes (the own engine
// coalesces in its pending buffer). The listener (proxy/listen) hands
// it connections through an Adapter. It is the only package of the
// server that imports x/net/http2 (proxy's imports_test.go holds that).
// HTTP/3's engine would sit beside it with the same shape: a connection
// in, handler calls out.
package h2

import (
	"context"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// Options are one connection's settings.
type Options struct {
	IdleTimeout          time.Duration // no stream for this long closes the connection
	MaxConcurrentStreams uint32        // SETTINGS_MAX_CONCURRENT_STREAMS
	MaxReadFrameSize     uint32        // SETTINGS_MAX_FRAME_SIZE announced
	ReadHeaderTimeout    time.Duration // for a stream's header block
	MaxHeaderBytes       int           // the decoded header list's budget
	ErrorLog             *log.Logger   // the engine's own messages
}

// ServeConn serves c until it ends, calling h for each stream with a
// context derived from ctx (a reset of the stream cancels it).
func ServeConn(ctx context.Context, c net.Conn, h http.Handler, o Options) {
	hs, base := engineFor(o)
	hs.ServeConn(c, &http2.ServeConnOpts{Context: ctx, Handler: h, BaseConfig: base})
}

// engine is the engine's configuration for one set of Options.
type engine struct {
	hs   *http2.Server
	base *http.Server
}

// engines shares an engine among the connections with the same Options:
// x/net/http2 keeps both servers for a connection's life and reads them
// only, and one of each per connection was 350 bytes of an idle one
// (issue 20). It is emptied past maxEngines (reloads with new settings).
var engines struct {
	mu sync.Mutex
	m  map[Options]engine
}

const maxEngines = 64

func engineFor(o Options) (*http2.Server, *http.Server) {
	engines.mu.Lock()
	defer engines.mu.Unlock()
	if e, ok := engines.m[o]; ok {
		return e.hs, e.base
	}
	if engines.m == nil || len(engines.m) >= maxEngines {
		engines.m = make(map[Options]engine)
	}
	e := engine{
		hs: &http2.Server{
			IdleTimeout:          o.IdleTimeout,
			MaxConcurrentStreams: o.MaxConcurrentStreams,
			MaxReadFrameSize:     o.MaxReadFrameSize,
			// Response headers are encoded without the dynamic table, as
			// nginx's are (it announces a table of 0): x/net/http2's
			// table kept each connection's last 4 KiB of response
			// headers, 0.9 KB of an idle connection after one response
			// (issue 20). 1 is the least x/net takes; no field fits.
			MaxEncoderHeaderTableSize: 1,
		},
		base: &http.Server{ReadHeaderTimeout: o.ReadHeaderTimeout, MaxHeaderBytes: o.MaxHeaderBytes,
			ErrorLog: o.ErrorLog},
	}
	engines.m[o] = e
	return e.hs, e.base
}
