// Package h2 is edge's HTTP/2: the engine, golang.org/x/net/http2
// serving one connection on net/http types (this file), and the adapter
// between it and the pipeline (package proxy): http2.go turns each stream
// into the engine-neutral proxy.Request, writes its Response and picks
// the settings below from the plan, h2guard.go applies nginx's limits to
// the frames, h2write.go coalesces the writes. The listener
// (proxy/listen) hands it connections through an Adapter. It is the only
// package of the server that imports x/net/http2 (proxy's
// imports_test.go holds that). An engine of edge's own, or HTTP/3's,
// would sit beside it with the same shape: a connection in, handler
// calls out.
package h2

import (
	"context"
	"log"
	"net"
	"net/http"
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
	hs := &http2.Server{
		IdleTimeout:          o.IdleTimeout,
		MaxConcurrentStreams: o.MaxConcurrentStreams,
		MaxReadFrameSize:     o.MaxReadFrameSize,
	}
	hs.ServeConn(c, &http2.ServeConnOpts{
		Context: ctx,
		Handler: h,
		BaseConfig: &http.Server{ReadHeaderTimeout: o.ReadHeaderTimeout, MaxHeaderBytes: o.MaxHeaderBytes,
			ErrorLog: o.ErrorLog},
	})
}
