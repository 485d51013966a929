// This file lets a running edge be profiled: with EDGE_PPROF=127.0.0.1:6060
// in its environment, Go's pprof handlers are served on that address
// (loopback only is the intended use). It is how the A/B notes find the
// bottleneck when edge falls short of nginx.
package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
)

func startPprof() {
	addr := os.Getenv("EDGE_PPROF")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: [warn] EDGE_PPROF: %v\n", err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	go func() { _ = http.Serve(ln, mux) }()
}
