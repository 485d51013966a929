// This file tests edge ab's own load client against real servers on
// loopback: every request opens a new connection (and a full TLS
// handshake), statuses and failures are counted, and a ramp's users rise.

package ab

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingServer answers path /ok with 200 and anything else with 404,
// and counts connections, TLS handshakes and resumed sessions.
type countingServer struct {
	srv                    *httptest.Server
	conns, resumed, hellos atomic.Int64
}

func newCountingServer(t *testing.T, useTLS bool) *countingServer {
	t.Helper()
	cs := &countingServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && r.TLS.DidResume {
			cs.resumed.Add(1)
		}
		w.Write([]byte("ok"))
	})
	cs.srv = httptest.NewUnstartedServer(mux)
	cs.srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.conns.Add(1)
		}
	}
	if useTLS {
		cs.srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cs.hellos.Add(1)
			return nil, nil
		}}
		cs.srv.StartTLS()
	} else {
		cs.srv.Start()
	}
	t.Cleanup(cs.srv.Close)
	return cs
}

func (cs *countingServer) addr() string {
	return strings.TrimPrefix(strings.TrimPrefix(cs.srv.URL, "https://"), "http://")
}

func TestLoadClientConnectNewConnectionEachRequest(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		name := map[bool]string{false: "http", true: "https"}[useTLS]
		t.Run(name, func(t *testing.T) {
			cs := newCountingServer(t, useTLS)
			res, err := runLoadClient(ClientSpec{Mode: ToolConnect, Addr: cs.addr(), TLS: useTLS, Host: "localhost",
				Path: "/ok", Conns: 2, Duration: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if res.Requests == 0 || res.Errors != 0 {
				t.Fatalf("requests %d, errors %d (%v)", res.Requests, res.Errors, res.ErrorSamples)
			}
			if got := cs.conns.Load(); got < res.Requests {
				t.Errorf("%d connections for %d requests: connections were reused", got, res.Requests)
			}
			if useTLS && (cs.hellos.Load() < res.Requests || cs.resumed.Load() != 0) {
				t.Errorf("%d handshakes, %d resumed, for %d requests", cs.hellos.Load(), cs.resumed.Load(), res.Requests)
			}
			if res.P50 <= 0 || res.P99 < res.P50 {
				t.Errorf("p50 %v p99 %v", res.P50, res.P99)
			}
		})
	}
}

func TestLoadClientCountsErrors(t *testing.T) {
	cs := newCountingServer(t, false)
	res, err := runLoadClient(ClientSpec{Mode: ToolConnect, Addr: cs.addr(), Host: "localhost",
		Path: "/missing", Conns: 1, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 || res.Errors != res.Requests || len(res.ErrorSamples) != 1 || res.ErrorSamples[0] != "status 404" {
		t.Errorf("requests %d, errors %d, samples %q", res.Requests, res.Errors, res.ErrorSamples)
	}
	// Nothing listens: every attempt is a connection error, not a request.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	res, err = runLoadClient(ClientSpec{Mode: ToolConnect, Addr: dead, Host: "x", Path: "/", Conns: 1, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 0 || res.Errors == 0 {
		t.Errorf("dead server: requests %d, errors %d", res.Requests, res.Errors)
	}
}

func TestLoadClientTimeouts(t *testing.T) {
	// A server that accepts and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	res, err := runLoadClient(ClientSpec{Mode: ToolConnect, Addr: ln.Addr().String(), Host: "x", Path: "/",
		Conns: 2, Duration: 300 * time.Millisecond, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Timeouts == 0 || res.Errors != res.Timeouts || res.Requests != 0 {
		t.Errorf("requests %d, errors %d, timeouts %d", res.Requests, res.Errors, res.Timeouts)
	}
}

func TestLoadClientRamp(t *testing.T) {
	cs := newCountingServer(t, false)
	res, err := runLoadClient(ClientSpec{Mode: ToolRamp, Addr: cs.addr(), Host: "localhost", Path: "/ok",
		Conns: 20, Duration: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Series) != 2 {
		t.Fatalf("series %+v, want 2 seconds", res.Series)
	}
	if res.Series[0].Users != 1 || res.Series[1].Users != 10 {
		t.Errorf("users %d then %d, want 1 then 10", res.Series[0].Users, res.Series[1].Users)
	}
	var hits int64
	for _, p := range res.Series {
		hits += p.Hits
		if p.Errors != 0 || p.Timeouts != 0 {
			t.Errorf("second %d: %d errors, %d timeouts", p.Second, p.Errors, p.Timeouts)
		}
	}
	if hits != res.Requests || hits == 0 {
		t.Errorf("hits %d, requests %d", hits, res.Requests)
	}
}

func TestServeLoadClientJSON(t *testing.T) {
	cs := newCountingServer(t, false)
	spec, _ := json.Marshal(ClientSpec{Mode: ToolConnect, Addr: cs.addr(), Host: "h", Path: "/ok", Conns: 1, Duration: 100 * time.Millisecond})
	var out bytes.Buffer
	if err := ServeLoadClient(bytes.NewReader(spec), &out); err != nil {
		t.Fatal(err)
	}
	var res ClientResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Requests == 0 {
		t.Errorf("result %s: %v", out.String(), err)
	}
	if err := ServeLoadClient(strings.NewReader(`{"Mode":"wrk"}`), &out); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
