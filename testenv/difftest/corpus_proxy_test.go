// This file holds the proxy_pass scenario: nginx and edge both proxy to
// one HTTP backend, a small Go server started by the test that answers
// with the request head and body it received, so that what each proxy
// sent upstream (request line, headers in order, body framing) is
// compared byte for byte along with what the client gets back: redirects
// rewritten by proxy_redirect, X-Accel-Redirect, hidden headers,
// intercepted errors, chunked bodies, a dead upstream.

package difftest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"edge/testenv"

	"golang.org/x/net/dns/dnsmessage"
)

// startBackend starts the echo backend on a free loopback port and
// returns its address. It serves until the test ends.
func startBackend(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("difftest: backend: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveBackend(c, ln.Addr().String())
		}
	}()
	return ln.Addr().String()
}

// serveBackend answers the requests of one connection.
func serveBackend(c net.Conn, self string) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		var head strings.Builder
		length, chunked, keep := int64(0), false, false
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		head.WriteString(line)
		keep = strings.HasSuffix(strings.TrimSpace(line), "HTTP/1.1")
		for {
			h, err := br.ReadString('\n')
			if err != nil {
				return
			}
			head.WriteString(h)
			if h == "\r\n" || h == "\n" {
				break
			}
			name, value, _ := strings.Cut(strings.TrimSpace(h), ":")
			value = strings.TrimSpace(value)
			switch strings.ToLower(name) {
			case "content-length":
				length, _ = strconv.ParseInt(value, 10, 64)
			case "transfer-encoding":
				chunked = strings.EqualFold(value, "chunked")
			case "connection":
				if strings.EqualFold(value, "close") {
					keep = false
				}
			}
		}
		var body []byte
		if chunked {
			body = readChunked(br)
		} else if length > 0 {
			body = make([]byte, length)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
		}
		target := strings.Fields(head.String())[1]
		if !backendAnswer(c, target, head.String(), body, self, keep) || !keep {
			return
		}
	}
}

func readChunked(br *bufio.Reader) []byte {
	var body []byte
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return body
		}
		n, _ := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if n == 0 {
			_, _ = br.ReadString('\n')
			return body
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(br, chunk); err != nil {
			return body
		}
		body = append(body, chunk[:n]...)
	}
}

// backendAnswer writes the response for target; false ends the
// connection.
func backendAnswer(c net.Conn, target, head string, body []byte, self string, keep bool) bool {
	conn := "Connection: close\r\n"
	if keep {
		conn = "Connection: keep-alive\r\n"
	}
	echo := head + string(body)
	status, extra := "200 OK", ""
	path, _, _ := strings.Cut(target, "?")
	switch {
	case strings.HasPrefix(path, "/redirect"):
		status, extra = "302 Found", "Location: http://"+self+"/echo/moved\r\nRefresh: 5; url=http://"+self+"/echo/r\r\n"
	case strings.HasPrefix(path, "/accel"):
		extra = "X-Accel-Redirect: /hello.txt\r\nSet-Cookie: a=b\r\nX-Other: dropped\r\n"
	case strings.HasPrefix(path, "/hidden"):
		extra = "X-Pad: pad\r\nX-Powered-By: go\r\nX-Accel-Limit-Rate: 0\r\nX-Shown: yes\r\n"
	case strings.HasPrefix(path, "/status/"):
		status = strings.TrimPrefix(path, "/status/") + " Custom"
	case strings.HasPrefix(path, "/chunked"):
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n%s\r\n", conn)
		for _, part := range []string{"first ", "second ", echo} {
			fmt.Fprintf(c, "%x\r\n%s\r\n", len(part), part)
		}
		_, _ = io.WriteString(c, "0\r\n\r\n")
		return true
	case strings.HasPrefix(path, "/trailers"):
		// A chunked body with a trailer: nginx 1.22 passes neither the
		// fields nor (for proxy_pass) anything but the Trailer header.
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n%s\r\n", conn)
		fmt.Fprintf(c, "%x\r\n%s\r\n0\r\nX-Checksum: abc\r\n\r\n", len(echo), echo)
		return true
	case strings.HasPrefix(path, "/close"):
		fmt.Fprintf(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n%s", echo)
		return false
	}
	fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n%s%s\r\n%s", status, len(echo), conn, extra, echo)
	return true
}

const proxyHTTP = `
upstream up {
    server {{BACKEND}};
    keepalive 4;
}
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    location /p/ { proxy_pass http://{{BACKEND}}/echo/; }
    location /same { proxy_pass http://{{BACKEND}}; }
    location /hdr/ {
        proxy_set_header Host $host;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Proxy $proxy_host:$proxy_port;
        proxy_set_header Accept-Encoding "";
        proxy_pass http://{{BACKEND}}/echo/;
    }
    location /nohdr/ {
        proxy_pass_request_headers off;
        proxy_pass http://{{BACKEND}}/echo/;
    }
    location /nobody/ {
        proxy_pass_request_body off;
        proxy_pass http://{{BACKEND}}/echo/;
    }
    location /ka/ {
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass http://up/echo/;
    }
    location /stream/ {
        proxy_buffering off;
        proxy_request_buffering off;
        proxy_http_version 1.1;
        proxy_pass http://{{BACKEND}}/;
    }
    location /redirect { proxy_pass http://{{BACKEND}}; }
    location /redirect-off/ { proxy_redirect off; proxy_pass http://{{BACKEND}}/redirect/; }
    location /redirect-explicit/ {
        proxy_redirect http://{{BACKEND}}/echo/ /elsewhere/;
        proxy_pass http://{{BACKEND}}/redirect/;
    }
    location /accel { proxy_pass http://{{BACKEND}}; }
    location /hidden {
        proxy_hide_header X-Shown;
        proxy_pass_header X-Pad;
        proxy_pass http://{{BACKEND}};
    }
    location /status/ { proxy_pass http://{{BACKEND}}; }
    location /intercept/ {
        proxy_intercept_errors on;
        error_page 404 /hello.txt;
        proxy_pass http://{{BACKEND}}/status/;
    }
    location /chunked { proxy_pass http://{{BACKEND}}; }
    location /trailers { proxy_http_version 1.1; proxy_pass http://{{BACKEND}}; }
    location /close { proxy_pass http://{{BACKEND}}; }
    location ~ ^/re/(.*)$ { proxy_pass http://{{BACKEND}}/echo/$1$is_args$args; }
    location /rw/ {
        rewrite ^/rw/(.*)$ /echo/rewritten/$1 break;
        proxy_pass http://{{BACKEND}}/ignored/;
    }
    location /dead/ {
        proxy_connect_timeout 2s;
        proxy_pass http://127.0.0.1:1/;
    }
    location /method/ {
        proxy_method PUT;
        proxy_pass http://{{BACKEND}}/echo/;
    }
}
`

var _ = addScenario(scenario{
	name: "proxy_pass",
	http: proxyHTTP,
	cases: cases([]reqCase{
		get("uri_part", "/p/a/b?x=1"),
		get("uri_part_escaped", "/p/a%20b/c%3Fd?x=%41"),
		get("uri_part_dots", "/p/a/../b/./c"),
		get("no_uri_part", "/same/a%2Fb?q"),
		get("set_header", "/hdr/x", "X-Forwarded-For: 10.0.0.1", "Accept-Encoding: gzip"),
		get("client_headers_order", "/p/x", "X-B: 2", "X-A: 1", "Cookie: c=d", "TE: trailers", "Keep-Alive: 5", "Upgrade: h2c"),
		// Names go upstream as the client spelled them.
		get("client_header_case", "/p/x", "X-SSI: 1", "x-lower: 2", "uSER-aGENT: odd", "x-forwarded-FOR: 10.0.0.2"),
		get("no_request_headers", "/nohdr/x", "X-A: 1"),
		post("post_body", "POST", "/p/form", "a=1&b=2", "Content-Type: application/x-www-form-urlencoded"),
		get("body_off_no_body", "/nobody/x"),
		post("put_empty", "PUT", "/p/empty", ""),
		raw("chunked_body_buffered", "POST /p/chunked HTTP/1.1\nHost: localhost\nTransfer-Encoding: chunked\nConnection: close\n\n5\nhello\n6\n world\n0\n\n"),
		get("keepalive_upstream", "/ka/x"),
		get("keepalive_upstream_again", "/ka/y"),
		get("unbuffered", "/stream/echo/s"),
		head("head", "/p/h"),
		get("redirect_default", "/redirect/x"),
		get("redirect_off", "/redirect-off/x"),
		get("redirect_explicit", "/redirect-explicit/x"),
		get("accel_redirect", "/accel/x"),
		get("hidden_headers", "/hidden/x"),
		get("status_404_passed", "/status/404"),
		get("status_503_passed", "/status/503"),
		get("intercept_404", "/intercept/404"),
		get("intercept_500_no_page", "/intercept/500"),
		get("chunked_response", "/chunked/x"),
		get10("chunked_response_http10", "/chunked/x"),
		get("chunked_trailer_dropped", "/trailers/x", "TE: trailers"),
		get("chunked_trailer_dropped_unbuffered", "/stream/trailers/x", "TE: trailers"),
		get("close_delimited", "/close/x"),
		get("regex_location_variables", "/re/a/b?z=1"),
		get("rewrite_break", "/rw/x?y=2"),
		get("dead_upstream_502", "/dead/x"),
		get("proxy_method", "/method/x"),
	}),
})

// startDNS starts the DNS server the resolver scenario's names are in.
func startDNS(t *testing.T) string {
	return testenv.StartDNS(t, map[string]testenv.DNSRecord{
		"backend.test": {Addrs: []string{"127.0.0.1"}, TTL: 60},
		"alias.test":   {CNAME: "backend.test", Addrs: []string{"127.0.0.1"}, TTL: 60},
		"chain.test":   {CNAME: "backend.test", TTL: 60},
		"empty.test":   {TTL: 60},
		"fail.test":    {RCode: dnsmessage.RCodeServerFailure},
		"big.test":     {Addrs: []string{"127.0.0.1"}, TTL: 60, Truncate: true},
	}).Addr
}

// proxyResolver passes to names a variable gives, with a resolver (the
// test's DNS server) and without one.
const proxyResolver = `
server {
    listen {{LISTEN}};
    server_name localhost;
    root {{ROOT}};
    resolver {{DNS}};
    resolver_timeout 5s;
    location /r/ {
        set $name $arg_name;
        proxy_pass http://$name:{{BACKEND_PORT}}/echo/;
    }
}
server {
    listen {{LISTEN}};
    server_name nores;
    location / {
        set $name backend.test;
        proxy_pass http://$name:{{BACKEND_PORT}}/echo/;
    }
    # A name and port a proxy_pass without variables names is nginx's
    # implicit upstream: the one with variables uses it, no resolver.
    location /static/ { proxy_pass http://localhost:{{BACKEND_PORT}}/echo/; }
    location /implicit/ {
        set $name LocalHost;
        proxy_pass http://$name:{{BACKEND_PORT}}/echo/;
    }
}
`

var _ = addScenario(scenario{
	name: "proxy_resolver",
	http: proxyResolver,
	cases: cases([]reqCase{
		get("resolved_name", "/r/x?name=backend.test"),
		get("resolved_name_upper", "/r/x?name=BACKEND.test"),
		get("resolved_cname_with_address", "/r/x?name=alias.test"),
		get("resolved_cname_alone", "/r/x?name=chain.test"),
		get("resolved_over_tcp", "/r/x?name=big.test"),
		get("resolved_ip", "/r/x?name=127.0.0.1"),
		get("nxdomain_502", "/r/x?name=nx.test"),
		get("no_address_502", "/r/x?name=empty.test"),
		get("servfail_502", "/r/x?name=fail.test"),
		get("no_resolver_502", "/x", "Host: nores"),
		get("implicit_upstream_no_resolver", "/implicit/x", "Host: nores"),
	}),
})
