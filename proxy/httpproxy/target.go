// target.go reads the URL of a proxy_pass directive (after its variables,
// if any, were evaluated) into what the rest of the package needs: where
// to connect, the Host header nginx sends ($proxy_host), $proxy_port and
// the URI part.

package httpproxy

import (
	"fmt"
	"net"
	"strings"
)

// Target is a parsed proxy_pass URL.
type Target struct {
	// Scheme is "http" or "https".
	Scheme string
	// Network is "tcp" or "unix".
	Network string
	// Host is the host as written (an upstream name, a DNS name or an IP
	// address, IPv6 without brackets); for unix: the socket path.
	Host string
	// Port is the port as written; "" when the URL has none.
	Port string
	// Address is what to dial: host:port with the scheme's default port
	// filled in, or the socket path.
	Address string
	// ProxyHost is $proxy_host, the default Host header: host[:port],
	// the port left out when it is the scheme's default (as written, so
	// "[::1]:8080" keeps its brackets); "localhost" for unix sockets, as
	// nginx's ngx_http_proxy_set_vars.
	ProxyHost string
	// ProxyPort is $proxy_port: the port, or "80"/"443" by default; ""
	// for unix sockets.
	ProxyPort string
	// URI is the URI part, from the first "/" after the host on (""
	// when there is none, which is not the same as "/": see
	// UpstreamURI). For unix sockets it follows the ":" after the path.
	URI string
}

// ParseTarget reads a proxy_pass URL: "http://host[:port][/uri]",
// "https://...", or "http://unix:/path/to/socket[:/uri]". The error
// words follow nginx's ("invalid URL prefix", "invalid port", "no host").
func ParseTarget(url string) (Target, error) {
	var t Target
	var rest string
	switch {
	case len(url) >= 7 && strings.EqualFold(url[:7], "http://"):
		t.Scheme, rest = "http", url[7:]
	case len(url) >= 8 && strings.EqualFold(url[:8], "https://"):
		t.Scheme, rest = "https", url[8:]
	default:
		return t, fmt.Errorf("httpproxy: invalid URL prefix in %q", url)
	}
	defPort := "80"
	if t.Scheme == "https" {
		defPort = "443"
	}
	if len(rest) >= 5 && strings.EqualFold(rest[:5], "unix:") {
		// nginx's ngx_parse_unix_domain_url: the path ends at the first
		// ':' after it, which starts the URI.
		path := rest[5:]
		if i := strings.IndexByte(path, ':'); i >= 0 {
			t.URI = path[i+1:]
			path = path[:i]
		}
		if path == "" {
			return t, fmt.Errorf("httpproxy: no path in the unix domain socket %q", url)
		}
		t.Network, t.Host, t.Address = "unix", path, path
		t.ProxyHost = "localhost"
		return t, nil
	}
	t.Network = "tcp"
	hostport := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hostport, t.URI = rest[:i], rest[i:]
		if t.URI[0] == '?' {
			// nginx keeps "?args" after the host as the URI ("/?args"
			// would be the same request); an empty path is "/".
			t.URI = "/" + t.URI
		}
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return t, fmt.Errorf("httpproxy: invalid IPv6 address in %q", url)
		}
		host = hostport[1:end]
		switch after := hostport[end+1:]; {
		case after == "":
		case after[0] == ':':
			port = after[1:]
		default:
			return t, fmt.Errorf("httpproxy: invalid host in %q", url)
		}
	} else if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
	}
	if host == "" {
		return t, fmt.Errorf("httpproxy: no host in %q", url)
	}
	if port != "" && !validPort(port) {
		return t, fmt.Errorf("httpproxy: invalid port in %q", url)
	}
	t.Host, t.Port = host, port
	if port == "" || port == defPort {
		// $proxy_host leaves out the default port even when it was written.
		t.ProxyHost = hostportText(host, "")
		t.ProxyPort = defPort
	} else {
		t.ProxyHost = hostportText(host, port)
		t.ProxyPort = port
	}
	if port == "" {
		port = defPort
	}
	t.Address = net.JoinHostPort(host, port)
	return t, nil
}

func hostportText(host, port string) string {
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if port == "" {
		return host
	}
	return host + ":" + port
}

func validPort(p string) bool {
	if len(p) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n >= 1 && n <= 65535
}
