// Tests of the own engine's stateless HPACK encoder (engine.go).

package h2

import (
	"bytes"
	"strconv"
	"testing"

	"edge/proxy"

	"golang.org/x/net/http2/hpack"
)

// TestStatelessEncoder: the own engine's header blocks decode, with an
// ordinary HPACK decoder, to :status, the response's fields in lower
// case but those HTTP/2 forbids, Content-Length and a Date, and leave
// the decoder's dynamic table empty (RFC 7541 6.2.2: never indexed).
func TestStatelessEncoder(t *testing.T) {
	for _, status := range []int{200, 204, 206, 301, 304, 400, 404, 418, 500, 503} {
		var resp proxy.Response
		resp.Length = 1234
		resp.Header.Add("Content-Type", "text/html; charset=utf-8")
		resp.Header.Add("Server", "edge")
		resp.Header.Add("X-Custom-Header", "a value")
		resp.Header.Add("Set-Cookie", "a=1")
		resp.Header.Add("Set-Cookie", "b=2")
		resp.Header.Add("Connection", "keep-alive")
		resp.Header.Add("Keep-Alive", "timeout=5")
		resp.Header.Add("Transfer-Encoding", "chunked")
		resp.Header.Add("Bad Name", "dropped")
		resp.Header.Add("X-Bad-Value", "a\x00b")
		resp.Header.Add("X-"+string(bytes.Repeat([]byte("Long"), 30)), "long name")
		st := &ownStream{}
		block := st.encodeHeaders(nil, &resp, status, false, true)
		dec := hpack.NewDecoder(4096, nil)
		fields, err := dec.DecodeFull(block)
		if err != nil {
			t.Fatalf("status %d: %v", status, err)
		}
		var got []string
		for _, f := range fields {
			if f.Name == "date" {
				if f.Value != httpDate() {
					t.Errorf("date %q, want %q", f.Value, httpDate())
				}
				continue
			}
			got = append(got, f.Name+": "+f.Value)
		}
		want := []string{":status: " + strconv.Itoa(status), "content-type: text/html; charset=utf-8", "server: edge",
			"x-custom-header: a value", "set-cookie: a=1", "set-cookie: b=2",
			"x-" + string(bytes.Repeat([]byte("long"), 30)) + ": long name", "content-length: 1234"}
		if len(got) != len(want) || len(fields) != len(want)+1 {
			t.Fatalf("status %d: fields %q, want %q and a date", status, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("status %d: field %d %q, want %q", status, i, got[i], want[i])
			}
		}
		// Nothing was indexed: the first dynamic-table entry (index 62)
		// is not there.
		if _, err := dec.DecodeFull([]byte{0x80 | 62}); err == nil {
			t.Errorf("status %d: the block left an entry in the decoder's table", status)
		}
	}
}

// TestHpackInt: integers with a prefix, RFC 7541 C.1's examples.
func TestHpackInt(t *testing.T) {
	for _, tc := range []struct {
		n    uint
		v    uint64
		want []byte
	}{{5, 10, []byte{10}}, {5, 1337, []byte{31, 154, 10}}, {8, 42, []byte{42}}, {4, 15, []byte{15, 0}}} {
		if got := appendHpackInt(nil, 0, tc.n, tc.v); !bytes.Equal(got, tc.want) {
			t.Errorf("%d with a %d-bit prefix: % x, want % x", tc.v, tc.n, got, tc.want)
		}
	}
}
