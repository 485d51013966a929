// This file is issue 20's soak: mixed traffic (HTTP/1.1 keep-alive, a new
// connection per request, HTTP/2 over TLS, PHP over FastCGI) against one
// edge for a while, with edge's resident memory sampled every second. The
// test command runs it briefly; EDGE_SOAK=10m runs the long one by hand,
// and EDGE_SOAK_SVG=FILE draws the RSS curve (docs/soak-rss.svg).
//
// What it asserts: every request is answered 200, and RSS is flat: the
// highest sample of the last third of the run is within soakGrowth of the
// highest of the first third.
package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"edge/testenv"
)

// soakGrowth is how much RSS may rise from the first third of the soak to
// the last: a leak of a few hundred bytes a request passes it within
// minutes.
const soakGrowth = 16 << 20

func TestSoak(t *testing.T) {
	d := 20 * time.Second
	if v := os.Getenv("EDGE_SOAK"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	fpm := testenv.StartFPM(t, testenv.FPMOptions{Listen: "127.0.0.1:0"})
	tlsPort := testenv.FreePort(t)
	s := newSite(t, "")
	cert, key := testenv.NewPKI(t, s.dir).Leaf(t, "localhost", false, "localhost")
	writeFile(t, s.path("html/hello.txt"), "hello\n")
	writeFile(t, s.path("html/hello.php"), "<?php echo 'hello from php';")
	s.writeConf(fmt.Sprintf(`daemon off;
error_log logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log logs/access.log;
    server {
        listen 127.0.0.1:{{PORT}};
        listen 127.0.0.1:%d ssl;
        http2 on;
        ssl_certificate %s;
        ssl_certificate_key %s;
        root html;
        location ~ \.php$ {
            fastcgi_pass %s;
            fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        }
    }
}
`, tlsPort, cert, key, fpm.Address))
	p := s.start()
	pid := p.Cmd.Process.Pid
	tlsConf := &tls.Config{InsecureSkipVerify: true}
	clients := []struct {
		name string
		c    *http.Client
		base string
		path string
	}{
		{"keepalive", &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, "http://" + s.addr, "/hello.txt"},
		{"new-conn", &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}, "http://" + s.addr, "/hello.txt"},
		{"h2", &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf, ForceAttemptHTTP2: true}}, "https://127.0.0.1:" + strconv.Itoa(tlsPort), "/hello.txt"},
		{"h2-php", &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf, ForceAttemptHTTP2: true}}, "https://127.0.0.1:" + strconv.Itoa(tlsPort), "/hello.php"},
		{"php", &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, "http://" + s.addr, "/hello.php"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var requests, failures atomic.Int64
	var wg sync.WaitGroup
	for _, cl := range clients {
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					resp, err := cl.c.Get(cl.base + cl.path)
					requests.Add(1)
					if err != nil {
						failures.Add(1)
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						failures.Add(1)
					}
				}
			}()
		}
	}
	type sample struct {
		at  time.Duration
		rss int64
	}
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(time.Second)
	for ctx.Err() == nil {
		select {
		case <-tick.C:
			if rss, err := testenv.RSS(pid); err == nil {
				samples = append(samples, sample{time.Since(start), rss})
			}
		case <-ctx.Done():
		}
	}
	tick.Stop()
	wg.Wait()
	t.Logf("%d requests in %v, %d failed", requests.Load(), d, failures.Load())
	if failures.Load() > 0 {
		t.Errorf("%d of %d requests failed", failures.Load(), requests.Load())
	}
	if len(samples) < 6 {
		t.Fatalf("only %d RSS samples", len(samples))
	}
	third := len(samples) / 3
	peak := func(ss []sample) int64 {
		var m int64
		for _, s := range ss {
			m = max(m, s.rss)
		}
		return m
	}
	first, last := peak(samples[:third]), peak(samples[len(samples)-third:])
	t.Logf("RSS: first third at most %d MB, last third at most %d MB", first>>20, last>>20)
	if last > first+soakGrowth {
		t.Errorf("RSS grew from %d MB to %d MB over the soak, want at most %d MB more", first>>20, last>>20, soakGrowth>>20)
	}
	if out := os.Getenv("EDGE_SOAK_SVG"); out != "" {
		var pts []string
		for _, s := range samples {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", 60+s.at.Seconds()/d.Seconds()*700, 330-float64(s.rss)/float64(128<<20)*300))
		}
		svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="380" font-family="sans-serif" font-size="12">
<rect width="800" height="380" fill="white"/>
<text x="400" y="20" text-anchor="middle">edge RSS during a %v soak (%d requests: HTTP/1.1 keep-alive, new connections, h2, PHP)</text>
<line x1="60" y1="330" x2="760" y2="330" stroke="black"/><line x1="60" y1="30" x2="60" y2="330" stroke="black"/>
<text x="55" y="334" text-anchor="end">0</text><text x="55" y="184" text-anchor="end">64 MB</text><text x="55" y="34" text-anchor="end">128 MB</text>
<line x1="60" y1="180" x2="760" y2="180" stroke="#ddd"/>
<text x="60" y="348" text-anchor="middle">0</text><text x="760" y="348" text-anchor="middle">%v</text>
<polyline fill="none" stroke="#c33" stroke-width="2" points="%s"/>
</svg>
`, d, requests.Load(), d, strings.Join(pts, " "))
		if err := os.WriteFile(filepath.Clean(out), []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
