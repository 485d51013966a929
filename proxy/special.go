// This file renders the responses edge makes itself for a status: the
// built-in error and redirect pages, byte for byte the ones nginx sends
// (ngx_http_special_response_handler), with edge's name where nginx puts
// its own. It is the only place internal failures turn into what a client
// sees: the page says the status, never why.
package proxy

import (
	"strconv"
	"strings"
)

// pageTitles are the titles of nginx's built-in pages. 494-497 are nginx's
// internal codes that go out as 400.
var pageTitles = map[int]string{
	301: "301 Moved Permanently",
	302: "302 Found",
	303: "303 See Other",
	307: "307 Temporary Redirect",
	308: "308 Permanent Redirect",
	400: "400 Bad Request",
	401: "401 Authorization Required",
	402: "402 Payment Required",
	403: "403 Forbidden",
	404: "404 Not Found",
	405: "405 Not Allowed",
	406: "406 Not Acceptable",
	408: "408 Request Time-out",
	409: "409 Conflict",
	410: "410 Gone",
	411: "411 Length Required",
	412: "412 Precondition Failed",
	413: "413 Request Entity Too Large",
	414: "414 Request-URI Too Large",
	415: "415 Unsupported Media Type",
	416: "416 Requested Range Not Satisfiable",
	421: "421 Misdirected Request",
	429: "429 Too Many Requests",
	494: "400 Request Header Or Cookie Too Large",
	495: "400 The SSL certificate error",
	496: "400 No required SSL certificate was sent",
	497: "400 The plain HTTP request was sent to HTTPS port",
	500: "500 Internal Server Error",
	501: "501 Not Implemented",
	502: "502 Bad Gateway",
	503: "503 Service Temporarily Unavailable",
	504: "504 Gateway Time-out",
	505: "505 HTTP Version Not Supported",
	507: "507 Insufficient Storage",
}

// closeAfter are the statuses after which nginx closes the connection.
var closeAfter = map[int]bool{400: true, 413: true, 414: true, 494: true, 495: true, 496: true, 497: true, 500: true, 501: true}

// pageCache holds rendered pages by status and server_tokens value.
var pageCache = func() map[string][]byte {
	m := map[string][]byte{}
	for code, title := range pageTitles {
		for _, tokens := range []string{"on", "off", "build"} {
			m[pageKey(code, tokens)] = []byte(renderPage(title, tokens))
		}
	}
	return m
}()

func pageKey(code int, tokens string) string { return strconv.Itoa(code) + tokens }

func renderPage(title, tokens string) string {
	tail := "<hr><center>edge</center>\r\n</body>\r\n</html>\r\n"
	if tokens != "off" {
		tail = "<hr><center>edge/" + Version + "</center>\r\n</body>\r\n</html>\r\n"
	}
	heading := "<center><h1>" + title + "</h1></center>\r\n"
	// nginx's 494-497 pages say "400 Bad Request" in the heading and the
	// reason on a line of its own.
	if reason, ok := strings.CutPrefix(title, "400 "); ok && reason != "Bad Request" {
		heading = "<center><h1>400 Bad Request</h1></center>\r\n<center>" + reason + "</center>\r\n"
	}
	return "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n" + heading + tail
}

// specialResponse answers with a status and edge's page for it.
func (rt *Site) specialResponse(r *Request, status int) {
	resp := r.resp
	resp.Status = status
	resp.Unsized = false // a page edge has whole goes with its length
	if status >= 494 && status <= 497 {
		resp.Status = 400
	}
	if closeAfter[status] {
		resp.Close = true
	}
	switch {
	case status == 204 || status == 304 || status < 200:
		resp.Kind = BodyNone
		resp.Length = 0
		resp.Header.Del("Content-Type")
		return
	case status < 300:
		// "return 200;": an empty body typed like the URI.
		resp.Header.Set("Content-Type", rt.contentType(r))
		resp.Kind = BodyBytes
		resp.Bytes = nil
		resp.Length = 0
		return
	}
	page := pageCache[pageKey(status, r.loc.ServerTokens)]
	if page == nil {
		resp.Kind = BodyBytes
		resp.Bytes = nil
		resp.Length = 0
		resp.Header.Del("Content-Type")
		return
	}
	resp.Header.Set("Content-Type", "text/html")
	resp.Kind = BodyBytes
	resp.Bytes = page
	resp.Length = int64(len(page))
}
