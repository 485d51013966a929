// Package httpproxy is edge's proxy_pass client: it sends a request to
// an HTTP upstream and reads the answer the way nginx's proxy module
// does, so that the request pipeline can put proxy_pass beside
// fastcgi_pass without knowing HTTP/1.x framing. It imports no engine
// and nothing of conf: the caller evaluates directives and variables and
// hands over plain values.
//
// # Configuration time
//
// ParseTarget reads a proxy_pass URL (after its variables, if any) into
// a Target: where to dial (Network, Address), $proxy_host and
// $proxy_port, and the URI part. CheckURIPart gives nginx's error for a
// URI part where no location prefix exists. One Upstream per address
// holds the timeouts (proxy_connect_timeout, proxy_send_timeout,
// proxy_read_timeout), proxy_buffer_size, the TLSConfig of an https://
// upstream (proxy_ssl_*) and, for an `upstream` block with `keepalive`, a
// Keepalive shared by the block's servers. NewHideHeaders builds
// proxy_hide_header / proxy_pass_header; DefaultRedirect is
// "proxy_redirect default".
//
// # Per request
//
//	uri := httpproxy.UpstreamURI(&httpproxy.URIRequest{...})
//	resp, err := up.Do(ctx, &httpproxy.Request{
//		Method: method, URI: uri, HTTP11: v11, ProxyHost: target.ProxyHost,
//		Set: evaluatedSetHeaders, Client: clientHeaders,
//		Body: body, BodyLength: n, // -1: unknown
//	})
//	if err != nil {
//		// err is an *Error: Status() is nginx's answer (502, 504, ...),
//		// Retryable(err, method, nonIdempotent) is proxy_next_upstream's
//		// test, Kind its category.
//	}
//	defer resp.Close()
//	hdrs := resp.ClientHeaders(nil, hide) // then RewriteLocation,
//	                                      // RewriteRefresh, RewriteSetCookie
//	switch {
//	case resp.Upgrade: // 101 to a client that asked: send the 101 with
//		// hdrs and "Connection: upgrade", hijack, then
//		err = resp.Tunnel(clientConn, sendTimeout)
//	case resp.HTTP09: // write resp's bytes to the client with no header
//	default:
//		err = resp.Stream(w, flush) // flush per read: proxy_buffering off
//	}
//
// Request.Set is proxy_set_header's list with values evaluated; the
// package appends nginx's defaults (DefaultSet: Host $proxy_host,
// Connection close, the body's framing, and the hop-by-hop headers
// removed) and the client's remaining headers in order. Response gives
// the status, every header in order ($upstream_http_*), ContentLength
// (-1 when unknown), the X-Accel-* values nginx acts on (Accel), the
// chunked trailer, and the body through Read or Stream.
//
// # What it costs
//
// Do runs on the caller's goroutine: no goroutine per request (a
// cancelable context registers a callback, not a goroutine), reads and
// writes go through internal/rawio's raw system calls, TLS included, with
// the timeouts between two successive operations that nginx has; a kept-
// alive exchange allocates the Response, its header block (one string)
// and the header slice. Only a tunnel starts a goroutine, for its second
// direction. Connection buffers are reused across requests, and given
// back to a pool when a connection closes.
//
// docs/proxy.md describes the design and where edge departs from nginx
// 1.22.1.
package httpproxy
