// This file sends the same requests to Debian's nginx, configured with
// set_real_ip_from / real_ip_header / real_ip_recursive and with
// `listen ... proxy_protocol`, and to the engine, and compares the
// $remote_addr, $remote_port and $proxy_protocol_* values nginx prints, or
// that it closed the connection.

package realip

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"edge/testenv"
)

// server is one nginx server block and the engine configuration it means.
type server struct {
	name   string
	lines  string // realip directives
	pp     bool   // listen ... proxy_protocol
	config Config
}

func trusted(t *testing.T, values ...string) *Trusted {
	t.Helper()
	tr := &Trusted{}
	for _, v := range values {
		if _, err := tr.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

const realipVars = `$remote_addr|$remote_port|$realip_remote_addr`
const ppVars = `$proxy_protocol_addr|$proxy_protocol_port|$proxy_protocol_server_addr|$proxy_protocol_server_port|` + realipVars

func servers(t *testing.T) map[string]server {
	all := trusted(t, "127.0.0.1", "10.0.0.0/8", "2001:db8::/32")
	from := "set_real_ip_from 127.0.0.1; set_real_ip_from 10.0.0.0/8; set_real_ip_from 2001:db8::/32;\n"
	list := []server{
		{"xff-recursive", from + "real_ip_header X-Forwarded-For; real_ip_recursive on;", false,
			Config{From: all, Source: XForwardedFor, Recursive: true}},
		{"xff", from + "real_ip_header X-Forwarded-For;", false,
			Config{From: all, Source: XForwardedFor}},
		{"x-real-ip", from, false, Config{From: all, Source: XRealIP}},
		{"x-real-ip-recursive", from + "real_ip_recursive on;", false, Config{From: all, Source: XRealIP, Recursive: true}},
		{"field", from + "real_ip_header X-Client; real_ip_recursive on;", false,
			Config{From: all, Source: Field, Header: "X-Client", Recursive: true}},
		{"untrusted", "set_real_ip_from 10.0.0.0/8; real_ip_header X-Forwarded-For;", false,
			Config{From: trusted(t, "10.0.0.0/8"), Source: XForwardedFor}},
		{"pp", "set_real_ip_from 127.0.0.1; real_ip_header proxy_protocol;", true,
			Config{From: trusted(t, "127.0.0.1"), Source: ProxyProtocol}},
		{"pp-untrusted", "set_real_ip_from 10.0.0.0/8; real_ip_header proxy_protocol;", true,
			Config{From: trusted(t, "10.0.0.0/8"), Source: ProxyProtocol}},
		{"pp-xff", from + "real_ip_header X-Forwarded-For;", true,
			Config{From: all, Source: XForwardedFor}},
	}
	out := map[string]server{}
	for _, s := range list {
		out[s.name] = s
	}
	return out
}

type rcase struct {
	server  string
	header  []byte   // PROXY header sent first
	headers []string // request header lines
}

func v2(cmd, fam byte, body []byte) []byte {
	b := append([]byte(nil), v2Signature...)
	b = append(b, cmd, fam, 0, 0)
	binary.BigEndian.PutUint16(b[14:], uint16(len(body)))
	return append(b, body...)
}

func inet4(src, dst string, sp, dp uint16, tlvs ...byte) []byte {
	s, d := netip.MustParseAddr(src).As4(), netip.MustParseAddr(dst).As4()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sp)
	b = binary.BigEndian.AppendUint16(b, dp)
	return append(b, tlvs...)
}

func inet6(src, dst string, sp, dp uint16) []byte {
	s, d := netip.MustParseAddr(src).As16(), netip.MustParseAddr(dst).As16()
	b := append(s[:], d[:]...)
	b = binary.BigEndian.AppendUint16(b, sp)
	return binary.BigEndian.AppendUint16(b, dp)
}

func realipCases() []rcase {
	xff := func(server string, values ...string) rcase {
		c := rcase{server: server}
		for _, v := range values {
			c.headers = append(c.headers, "X-Forwarded-For: "+v)
		}
		return c
	}
	var cs []rcase
	for _, s := range []string{"xff-recursive", "xff", "untrusted"} {
		cs = append(cs,
			xff(s),
			xff(s, "192.0.2.1"),
			xff(s, "192.0.2.1, 10.0.0.1"),
			xff(s, "192.0.2.1, 192.0.2.2, 10.0.0.1"),
			xff(s, "garbage, 10.0.0.1"),
			xff(s, "10.0.0.2, 10.0.0.1"),
			xff(s, "192.0.2.1", "10.0.0.1"),
			xff(s, "192.0.2.1, 10.0.0.5", "192.0.2.9"),
			xff(s, "192.0.2.7", "garbage", "10.0.0.1"),
			xff(s, "192.0.2.1:8080"),
			xff(s, "[2001:db8::1]:443"),
			xff(s, "2001:db8::5, 2001:db8::1"),
			xff(s, "192.0.2.1, ::ffff:10.0.0.1"),
			xff(s, " , ,192.0.2.1 ,, "),
			xff(s, "010.000.000.001"),
			xff(s, "192.0.2.3, 1..2.3"),
			xff(s, "255.255.255.255"),
			xff(s, "::1.2.3.4"),
			xff(s, "::ffff:1.2.3.4"),
			xff(s, "::0.0.1.5"),
			xff(s, "::1"),
			xff(s, "::0.1.0.0"),
			xff(s, "unknown"),
			xff(s, "192.0.2.1,10.0.0.1"),
			xff(s, "[::1]"),
			xff(s, "192.0.2.1:0"),
			xff(s, "192.0.2.1:65536"),
			xff(s, "fe80::1%eth0"),
			xff(s, "2001:DB8::A"),
		)
	}
	for _, s := range []string{"x-real-ip", "x-real-ip-recursive"} {
		cs = append(cs,
			rcase{server: s, headers: []string{"X-Real-IP: 192.0.2.1"}},
			rcase{server: s, headers: []string{"X-Real-IP: 192.0.2.1, 10.0.0.1"}},
			rcase{server: s, headers: []string{"X-Real-IP: 192.0.2.1", "X-Real-IP: 192.0.2.2"}},
			rcase{server: s, headers: []string{"X-Forwarded-For: 192.0.2.1"}},
		)
	}
	cs = append(cs,
		rcase{server: "field", headers: []string{"x-client: 192.0.2.1, 10.0.0.1"}},
		rcase{server: "field", headers: []string{"X-Client: 192.0.2.1", "X-Client: 192.0.2.2"}},
	)
	for _, s := range []string{"pp", "pp-untrusted", "pp-xff"} {
		cs = append(cs,
			rcase{server: s, header: []byte("PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n")},
			rcase{server: s, header: []byte("PROXY TCP6 2001:db8::1 2001:db8::2 1 2\r\n"), headers: []string{"X-Forwarded-For: 192.0.2.8"}},
			rcase{server: s, header: []byte("PROXY UNKNOWN\r\n")},
			rcase{server: s, header: []byte("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n")},
			rcase{server: s, header: []byte("PROXY TCP4 ::::: 5.6.7.8 1 2\r\n")},
			rcase{server: s, header: []byte("PROXY TCP4 1.2.3.4 5.6.7.8 01 02\r\n")},
			rcase{server: s, header: v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.1", 56324, 443))},
			rcase{server: s, header: v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2, 0x01, 0, 2, 'h', '2'))},
			rcase{server: s, header: v2(0x21, 0x21, inet6("2001:db8::1", "2001:db8::2", 3, 4))},
			rcase{server: s, header: v2(0x21, 0x21, inet6("::1.2.3.4", "::", 3, 4))},
			rcase{server: s, header: v2(0x21, 0x21, inet6("::5", "::1", 3, 4))},
			rcase{server: s, header: v2(0x21, 0x21, inet6("::0.0.1.5", "::0.1.0.0", 3, 4))},
			rcase{server: s, header: v2(0x20, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2))}, // LOCAL
			rcase{server: s, header: v2(0x21, 0x12, inet4("192.0.2.1", "198.51.100.1", 1, 2))}, // UDP
			rcase{server: s, header: v2(0x21, 0x00, nil)},                                      // UNSPEC
		)
	}
	// Headers nginx closes the connection on.
	for _, bad := range [][]byte{
		[]byte("PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n"),
		[]byte("PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n"),
		[]byte("PROXY TCP4 1.2.3.4 5.6.7.8 65536 1\r\n"),
		[]byte("PROXY TCP4 1.2.3.x 5.6.7.8 1 2\r\n"),
		[]byte("PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n"),
		[]byte("PROXY TCP4 1.2.3.4 5.6.7.8  1 2\r\n"),
		[]byte("PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n"),
		[]byte("proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n"),
		[]byte(""),
		v2(0x31, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2)),     // version 3
		v2(0x21, 0x11, inet4("192.0.2.1", "198.51.100.1", 1, 2)[:8]), // short address block
		v2(0x21, 0x21, inet4("192.0.2.1", "198.51.100.1", 1, 2)),     // INET6 with INET's length
	} {
		cs = append(cs, rcase{server: "pp", header: bad})
	}
	return cs
}

func TestRealIPAgainstNginx(t *testing.T) {
	ss := servers(t)
	ports := map[string]int{}
	var conf strings.Builder
	conf.WriteString(testenv.NginxMain(1) + "http {\n" + testenv.NginxHTTPTemps("") + testenv.NginxHTTPLogs(""))
	var all []int
	for name, s := range ss {
		p := testenv.FreePort(t)
		ports[name] = p
		all = append(all, p)
		pp, vars := "", realipVars
		if s.pp {
			pp, vars = " proxy_protocol", ppVars
		}
		fmt.Fprintf(&conf, "server {\nlisten 127.0.0.1:%d%s;\n%s\nreturn 200 \"%s\";\n}\n", p, pp, s.lines, vars)
	}
	conf.WriteString("}\n")
	testenv.StartNginx(t, conf.String(), all...)

	for i, c := range realipCases() {
		s := ss[c.server]
		got, local := nginxRequest(t, ports[c.server], c)
		want := engineAnswer(s, c, local)
		t.Logf("%-19s %-45q %-40q -> %s", c.server, c.header, c.headers, got)
		if got != want {
			t.Errorf("case %d %s %q %q:\n nginx  %s\n engine %s", i, c.server, c.header, c.headers, got, want)
		}
	}
}

// nginxRequest sends the case and returns the body, or "closed".
func nginxRequest(t *testing.T, port int, c rcase) (string, Addr) {
	t.Helper()
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	ap := netip.MustParseAddrPort(conn.LocalAddr().String())
	req := append([]byte(nil), c.header...)
	req = append(req, "GET / HTTP/1.0\r\nHost: a\r\n"...)
	for _, h := range c.headers {
		req = append(req, h+"\r\n"...)
	}
	req = append(req, "\r\n"...)
	if _, err := conn.Write(req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return "closed", Addr{IP: ap.Addr(), Port: ap.Port()}
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(body), Addr{IP: ap.Addr(), Port: ap.Port()}
}

// engineAnswer computes what nginx's return line prints for the case.
func engineAnswer(s server, c rcase, conn Addr) string {
	var h *Header
	if s.pp {
		var err error
		h, _, err = Parse(append(append([]byte(nil), c.header...), "GET / HTTP/1.0\r\n"...), 1024)
		if err != nil {
			return "closed"
		}
	}
	var values []string
	name := map[Source]string{XForwardedFor: "X-Forwarded-For", XRealIP: "X-Real-IP", Field: s.config.Header}[s.config.Source]
	for _, line := range c.headers {
		k, v, _ := strings.Cut(line, ": ")
		if strings.EqualFold(k, name) {
			values = append(values, v)
		}
	}
	if s.config.Source != XForwardedFor && len(values) > 1 {
		values = values[:1]
	}
	real := conn
	if s.config.Source == ProxyProtocol {
		real, _ = s.config.ResolveProxy(conn, h)
	} else {
		real, _ = s.config.Resolve(conn, values)
	}
	out := real.String() + "|" + real.PortString() + "|" + conn.String()
	if s.pp {
		pp := "|||"
		if h != nil {
			pp = fmt.Sprintf("%s|%d|%s|%d", h.SrcAddr, h.SrcPort, h.DstAddr, h.DstPort)
		}
		out = pp + "|" + out
	}
	return out
}
