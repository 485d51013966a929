// fuzz_test.go feeds arbitrary bytes, as a backend's side of a connection,
// through the record reader and the header parser.
package fastcgi

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzResponseReader must never panic, never hang and never hold more than
// the header cap: the input is finite, so every path ends in END_REQUEST
// or an error, and the header buffer is bounded by maxHeaderBytes.
func FuzzResponseReader(f *testing.F) {
	seeds := [][]byte{
		join(stdout("Status: 200 OK\r\nContent-Type: text/html\r\n\r\nhello"), stdout(""), end(0)),
		join(stderr("PHP message: x\n"), stdout("X-A: 1\n\nbody"), stderr("tail"), end(0)),
		join(stdoutChunks("Location: /x\r\nX-B: "+strings.Repeat("b", 3000)+"\r\n\r\n", 7), end(0)),
		join(stdout("X-A: 1\r\n"), end(statusOverloaded)),
		stdout("\r\nabc")[:12],
		end(0),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, bufSize := range []int{16, 0} {
			r := streamResponse(data, bufSize, func(msg []byte) {
				if len(msg) == 0 || len(msg) > 65535 {
					t.Fatalf("stderr message of %d bytes", len(msg))
				}
			})
			err := r.readHead()
			if cap(r.hbuf) > maxHeaderBytes {
				t.Fatalf("header buffer grew to %d", cap(r.hbuf))
			}
			if err != nil {
				if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrInvalidHeader) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error kind: %v", err)
				}
				continue
			}
			if r.Status < 100 || r.Status > 999 {
				t.Fatalf("status %d", r.Status)
			}
			n, err := io.Copy(io.Discard, r.Body)
			if n > int64(len(data)) {
				t.Fatalf("body of %d bytes from %d input bytes", n, len(data))
			}
			if err == nil && !r.stream.ended {
				t.Fatal("clean end without END_REQUEST")
			}
		}
	})
}
