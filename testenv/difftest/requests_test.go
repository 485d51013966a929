// This file builds the raw request texts of the corpus. Requests are
// written out byte for byte so that traversal attempts, odd hosts and
// malformed lines reach both servers exactly as sent.

package difftest

import (
	"strconv"
	"strings"
)

// req builds "METHOD target HTTP/1.1" with "Host: localhost" (unless hdrs
// names a Host) and the header lines in hdrs.
func req(name, method, target string, hdrs ...string) reqCase {
	return reqCase{name: name, raw: requestText(method, target, "HTTP/1.1", "", hdrs)}
}

func get(name, target string, hdrs ...string) reqCase { return req(name, "GET", target, hdrs...) }

func head(name, target string, hdrs ...string) reqCase { return req(name, "HEAD", target, hdrs...) }

// get10 is get over HTTP/1.0.
func get10(name, target string, hdrs ...string) reqCase {
	return reqCase{name: name, raw: requestText("GET", target, "HTTP/1.0", "", hdrs)}
}

// post sends body with a Content-Length.
func post(name, method, target, body string, hdrs ...string) reqCase {
	return reqCase{name: name, raw: requestText(method, target, "HTTP/1.1", body, hdrs)}
}

// raw takes a request written with "\n" line ends and sends it with
// "\r\n".
func raw(name, text string) reqCase {
	return reqCase{name: name, raw: strings.ReplaceAll(text, "\n", "\r\n")}
}

// lf sends text as written: its lines end in bare LFs, as nginx's own
// test suite and shell health checks send them (issue 14).
func lf(name, text string) reqCase { return reqCase{name: name, raw: text} }

func requestText(method, target, proto, body string, hdrs []string) string {
	var b strings.Builder
	b.WriteString(method + " " + target + " " + proto + "\r\n")
	hasHost := false
	for _, h := range hdrs {
		if strings.HasPrefix(strings.ToLower(h), "host:") {
			hasHost = true
		}
	}
	if !hasHost {
		b.WriteString("Host: localhost\r\n")
	}
	for _, h := range hdrs {
		b.WriteString(h + "\r\n")
	}
	if body != "" || method == "POST" || method == "PUT" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return b.String()
}

// viaPHP marks cases that reach php-fpm.
func viaPHP(cases ...reqCase) []reqCase {
	for i := range cases {
		cases[i].php = true
	}
	return cases
}

// with attaches a documented difference.
func (c reqCase) with(k *known) reqCase {
	c.known = k
	return c
}

// cases joins case lists.
func cases(lists ...[]reqCase) []reqCase {
	var out []reqCase
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
