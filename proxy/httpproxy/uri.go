// uri.go is nginx's choice of the URI a proxied request carries
// (ngx_http_proxy_create_request), as a pure function of what the
// pipeline knows about the request and the location.

package httpproxy

// URIRequest is what UpstreamURI needs to know.
type URIRequest struct {
	// PassURI is the URI part of proxy_pass ("" when it has none; "/"
	// is a URI part). With variables it is the evaluated one.
	PassURI string
	// Variables: proxy_pass has variables. Then a URI part, if any,
	// replaces the whole request URI and its arguments, as written.
	Variables bool
	// Location is the matched prefix (or "=") location's name, whose
	// length is cut from URI when proxy_pass has a URI part. The caller
	// leaves it "" where nginx has no usable location name: regex
	// locations, named locations, "if" and "limit_except" blocks
	// (there a URI part is a configuration error unless proxy_pass has
	// variables: see CheckURIPart).
	Location string
	// LocationChanged is nginx's !r->valid_location: the URI was
	// changed by "rewrite ... break" in this location, so the changed
	// URI is passed whole, without cutting Location.
	LocationChanged bool
	// URI is the normalized, decoded URI ($uri) and Args its arguments
	// ($args, "" for none).
	URI, Args string
	// RequestURI is the original request target ($request_uri).
	// RequestURIValid is nginx's r->valid_unparsed_uri: no rewrite or
	// internal redirect changed the URI, so proxy_pass without a URI
	// part sends RequestURI byte for byte.
	RequestURI      string
	RequestURIValid bool
	// Escape is nginx's r->quoted_uri || r->internal: the request
	// target had a %-escape, or the request was redirected internally
	// (rewrite, try_files, error_page, ...), so the decoded URI is
	// escaped again before it is sent.
	Escape bool
}

// UpstreamURI returns the request target sent upstream:
//
//   - proxy_pass with variables and a URI part: that URI, as written;
//   - proxy_pass without a URI part, the URI unchanged: the original
//     request target;
//   - otherwise the URI part followed by URI with Location's length cut
//     off (nothing cut after "rewrite ... break" or without a location
//     name), %-escaped again when Escape, then "?" and Args.
func UpstreamURI(r *URIRequest) string {
	if r.Variables && r.PassURI != "" {
		return r.PassURI
	}
	if r.PassURI == "" && r.RequestURIValid {
		return r.RequestURI
	}
	rest := r.URI
	prefix := ""
	if !r.LocationChanged {
		prefix = r.PassURI
		if r.PassURI != "" && len(r.Location) <= len(rest) {
			rest = rest[len(r.Location):]
		}
	}
	n := len(prefix) + len(rest) + 1 + len(r.Args)
	if r.Escape {
		n += 2 * escapeCount(rest)
	}
	b := make([]byte, 0, n)
	b = append(b, prefix...)
	if r.Escape {
		b = appendEscaped(b, rest)
	} else {
		b = append(b, rest...)
	}
	if r.Args != "" {
		b = append(b, '?')
		b = append(b, r.Args...)
	}
	return string(b)
}

// CheckURIPart reports nginx's configuration error for a URI part where
// there is no location prefix to replace: in a regex or named location,
// inside "if" or "limit_except", proxy_pass may have a URI part only
// through variables.
func CheckURIPart(passURI string, variables, noPrefix bool) error {
	if passURI != "" && !variables && noPrefix {
		return errURIPart
	}
	return nil
}

type confError string

func (e confError) Error() string { return string(e) }

const errURIPart = confError(`"proxy_pass" cannot have URI part in location given by regular expression, ` +
	`or inside named location, or inside "if" statement, or inside "limit_except" block`)

// uriEscape marks the bytes nginx's NGX_ESCAPE_URI escapes: controls,
// space, '#', '%', '?', DEL and every byte from 0x80.
var uriEscape = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c <= 0x20 || c >= 0x7f || c == '#' || c == '%' || c == '?'
	}
	return t
}()

func escapeCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if uriEscape[s[i]] {
			n++
		}
	}
	return n
}

const upperHex = "0123456789ABCDEF"

func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if uriEscape[c] {
			b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return b
}
