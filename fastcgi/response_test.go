// response_test.go tests the CGI header parser and the record stream on
// byte streams built record by record.
package fastcgi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseHead(t *testing.T) {
	long := strings.Repeat("v", maxHeaderLine-len("X-Long: "))
	tests := []struct {
		name       string
		block      string
		wantStatus int
		wantReason string
		wantFields []string // "Name=Value"
		wantErr    bool
	}{
		{name: "empty", block: "", wantStatus: 200},
		{name: "crlf", block: "Content-Type: text/html\r\nX-A: 1\r\n", wantStatus: 200,
			wantFields: []string{"Content-Type=text/html", "X-A=1"}},
		{name: "bare lf", block: "X-A: 1\nX-B:2", wantStatus: 200, wantFields: []string{"X-A=1", "X-B=2"}},
		{name: "status with reason", block: "Status: 404 Not Found\r\nX-A: 1\r\n", wantStatus: 404,
			wantReason: "Not Found", wantFields: []string{"X-A=1"}},
		{name: "status code only", block: "status: 503\r\n", wantStatus: 503},
		{name: "first status wins", block: "Status: 201\r\nStatus: 500\r\n", wantStatus: 201},
		// nginx, not RFC 3875 6.2.2: a local Location is a plain 302 too.
		{name: "absolute location", block: "Location: http://example.com/\r\n", wantStatus: 302,
			wantFields: []string{"Location=http://example.com/"}},
		{name: "local location", block: "Location: /next\r\n", wantStatus: 302, wantFields: []string{"Location=/next"}},
		{name: "location with status", block: "Location: /x\r\nStatus: 301 Moved\r\n", wantStatus: 301,
			wantReason: "Moved", wantFields: []string{"Location=/x"}},
		{name: "names keep case, values trimmed", block: "x-lower:\t v \t\r\n", wantStatus: 200,
			wantFields: []string{"x-lower=v"}},
		{name: "empty value", block: "X-Empty:\r\n", wantStatus: 200, wantFields: []string{"X-Empty="}},
		{name: "repeated names kept in order", block: "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\n", wantStatus: 200,
			wantFields: []string{"Set-Cookie=a=1", "Set-Cookie=b=2"}},
		{name: "colon in value", block: "X-Url: http://a:1/\r\n", wantStatus: 200, wantFields: []string{"X-Url=http://a:1/"}},
		{name: "obs-text value", block: "X-A: caf\xc3\xa9\r\n", wantStatus: 200, wantFields: []string{"X-A=caf\xc3\xa9"}},
		{name: "longest line", block: "X-Long: " + long + "\r\n", wantStatus: 200, wantFields: []string{"X-Long=" + long}},
		{name: "continuation", block: "X-A: 1\r\n 2\r\n", wantErr: true},
		{name: "no colon", block: "X-A 1\r\n", wantErr: true},
		{name: "empty name", block: ": v\r\n", wantErr: true},
		{name: "space in name", block: "X A: v\r\n", wantErr: true},
		{name: "bare cr in value", block: "X-A: 1\rX-B: 2\r\n", wantErr: true},
		{name: "nul in value", block: "X-A: \x00\r\n", wantErr: true},
		{name: "status not a number", block: "Status: abc\r\n", wantErr: true},
		{name: "status too short", block: "Status: 20\r\n", wantErr: true},
		{name: "status below 100", block: "Status: 099\r\n", wantErr: true},
		{name: "status glued to reason", block: "Status: 200OK\r\n", wantErr: true},
		{name: "http status line", block: "HTTP/1.1 200 OK\r\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, reason, fields, err := parseHead([]byte(tt.block), nil)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidHeader) {
					t.Fatalf("err = %v, want ErrInvalidHeader", err)
				}
				return
			}
			if err == errImplied {
				err = nil // an inferred status, reported through Response.StatusImplied
			}
			if err != nil {
				t.Fatal(err)
			}
			if status != tt.wantStatus || string(reason) != tt.wantReason {
				t.Errorf("status = %d %q, want %d %q", status, reason, tt.wantStatus, tt.wantReason)
			}
			var got []string
			for _, f := range fields {
				got = append(got, string(f.Name)+"="+string(f.Value))
			}
			if !slices.Equal(got, tt.wantFields) {
				t.Errorf("fields = %.200q, want %.200q", got, tt.wantFields)
			}
		})
	}
}

// stdout, stderr and end build a backend's byte stream.
func stdout(s string) []byte { return appendRecord(nil, typeStdout, []byte(s)) }
func stderr(s string) []byte { return appendRecord(nil, typeStderr, []byte(s)) }
func end(protocolStatus byte) []byte {
	return appendRecord(nil, typeEndRequest, []byte{0, 0, 0, 0, protocolStatus, 0, 0, 0})
}

// stdoutChunks splits s into STDOUT records of at most n bytes.
func stdoutChunks(s string, n int) []byte {
	var b []byte
	for len(s) > 0 {
		k := min(n, len(s))
		b = append(b, stdout(s[:k])...)
		s = s[k:]
	}
	return b
}

// streamResponse returns a Response reading data as if a backend had sent
// it, with the reader's buffer of the given size (0: the real one).
func streamResponse(data []byte, bufSize int, stderrFn func([]byte)) *Response {
	if bufSize == 0 {
		bufSize = readBufferSize
	}
	cn := &conn{br: bufio.NewReaderSize(bytes.NewReader(data), bufSize)}
	r := &Response{client: &Client{}, conn: cn, ctx: context.Background(), wdone: make(chan error, 1)}
	r.body.r = r
	r.Body = &r.body
	r.stream.reset(cn.br, stderrFn, nil)
	return r
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestStream(t *testing.T) {
	bigHeader := "X-Big: " + strings.Repeat("b", 40000) + "\r\n"
	tests := []struct {
		name       string
		data       []byte
		bufSize    int
		wantHeadEr error // error from reading the header
		wantBodyEr error // error from reading the body
		wantStatus int
		wantBody   string
		wantStderr []string
	}{
		{name: "one record", data: join(stdout("Status: 201\r\n\r\nhi"), stdout(""), end(0)),
			wantStatus: 201, wantBody: "hi"},
		{name: "header split across records", data: join(stdoutChunks("X-A: 1\r\nX-B: 2\r\n\r\nbody", 3), end(0)),
			wantStatus: 200, wantBody: "body"},
		{name: "header line split at cr", data: join(stdout("X-A: 1\r"), stdout("\n\r"), stdout("\nrest"), end(0)),
			wantStatus: 200, wantBody: "rest"},
		{name: "header longer than the read buffer", bufSize: 4096,
			data: join(stdoutChunks(bigHeader+"\r\nbody", 1000), end(0)), wantStatus: 200, wantBody: "body"},
		{name: "stderr interleaved", bufSize: 16,
			data: join(stderr("PHP message: a"), stdout("X-A: 1\r\n"), stderr("; PHP message: b; PHP message: c\n"),
				stdout("\r\nbo"), stderr("a message longer than the read buffer\r\n"), stdout("dy"), stderr(""), end(0)),
			wantStatus: 200, wantBody: "body",
			wantStderr: []string{"PHP message: a", "PHP message: b; PHP message: c", "a message longer than the read buffer"}},
		{name: "no stdout end record", data: join(stdout("\r\nx"), end(0)), wantStatus: 200, wantBody: "x"},
		{name: "large body", data: join(stdout("\n"), stdoutChunks(strings.Repeat("z", 200000), maxRecordContent), end(0)),
			wantStatus: 200, wantBody: strings.Repeat("z", 200000)},
		{name: "overloaded", data: end(statusOverloaded), wantHeadEr: ErrProtocol},
		{name: "end inside header", data: join(stdout("X-A: 1\r\n"), end(0)), wantHeadEr: ErrInvalidHeader},
		{name: "empty stream", data: nil, wantHeadEr: io.ErrUnexpectedEOF},
		{name: "cut inside header", data: stdout("X-A: 1\r\n"), wantHeadEr: io.ErrUnexpectedEOF},
		{name: "cut inside body", data: stdout("\r\nabc"), wantStatus: 200, wantBody: "abc", wantBodyEr: ErrProtocol},
		{name: "cut inside a record", data: stdout("\r\nabc")[:12], wantStatus: 200, wantBody: "ab",
			wantBodyEr: ErrProtocol},
		{name: "wrong version", data: append([]byte{2}, stdout("\r\n")[1:]...), wantHeadEr: ErrProtocol},
		{name: "wrong request id", data: func() []byte { b := stdout("\r\n"); b[3] = 9; return b }(),
			wantHeadEr: ErrProtocol},
		{name: "unexpected type", data: appendRecord(nil, typeGetValuesResult, nil), wantHeadEr: ErrProtocol},
		{name: "short end request", data: join(stdout("\r\n"), appendRecord(nil, typeEndRequest, []byte{0})),
			wantStatus: 200, wantBodyEr: ErrProtocol},
		{name: "line too long", data: stdoutChunks("X-A: "+strings.Repeat("a", maxHeaderLine), 60000),
			wantHeadEr: ErrInvalidHeader},
		{name: "header block too large", data: stdoutChunks(strings.Repeat("X-A: "+strings.Repeat("a", 1000)+"\n", 1100), 60000),
			wantHeadEr: ErrInvalidHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			r := streamResponse(tt.data, tt.bufSize, func(l []byte) { lines = append(lines, string(l)) })
			err := r.readHead()
			if tt.wantHeadEr != nil {
				if !errors.Is(err, tt.wantHeadEr) {
					t.Fatalf("readHead: %v, want %v", err, tt.wantHeadEr)
				}
				return
			}
			if err != nil {
				t.Fatalf("readHead: %v", err)
			}
			if r.Status != tt.wantStatus {
				t.Errorf("status %d, want %d", r.Status, tt.wantStatus)
			}
			body, err := io.ReadAll(r.Body)
			if string(body) != tt.wantBody {
				t.Errorf("body %.100q, want %.100q", body, tt.wantBody)
			}
			if tt.wantBodyEr != nil {
				if !errors.Is(err, tt.wantBodyEr) {
					t.Fatalf("body error %v, want %v", err, tt.wantBodyEr)
				}
				return
			}
			if err != nil {
				t.Fatalf("body error %v", err)
			}
			if !slices.Equal(lines, tt.wantStderr) {
				t.Errorf("stderr %q, want %q", lines, tt.wantStderr)
			}
			if !r.stream.ended || r.conn.br.Buffered() != 0 {
				t.Errorf("stream not at a clean end: ended %v, %d bytes left", r.stream.ended, r.conn.br.Buffered())
			}
		})
	}
}

func TestStderrIgnored(t *testing.T) {
	data := join(appendRecord(nil, typeStderr, bytes.Repeat([]byte("e"), maxRecordContent)), stdout("\r\nok"), end(0))
	r := streamResponse(data, 4096, nil)
	if err := r.readHead(); err != nil {
		t.Fatal(err)
	}
	if body, err := io.ReadAll(r.Body); err != nil || string(body) != "ok" {
		t.Errorf("body %q, %v", body, err)
	}
}

// TestStreamReadDoesNotWait checks that Read returns what a record holds
// without waiting for more: the next record is not there yet.
func TestStreamReadDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	cn := &conn{br: bufio.NewReaderSize(pr, readBufferSize)}
	var s stream
	s.reset(cn.br, nil, nil)
	go pw.Write(stdout("first"))
	buf := make([]byte, 100)
	n, err := s.Read(buf)
	if err != nil || string(buf[:n]) != "first" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	pw.Close()
}

// TestCatchStderr: a STDERR record with a catch string fails the header
// read with ErrInvalidHeader, as nginx's fastcgi_catch_stderr makes the
// response invalid; after the header, and without a match, stderr is
// only reported.
func TestCatchStderr(t *testing.T) {
	for _, tt := range []struct {
		name    string
		data    []byte
		bufSize int
		caught  bool
	}{
		{"before the header", join(stderr("PHP message: DB ERROR: gone\n"), stdout("X-A: 1\r\n\r\nbody"), end(0)), 0, true},
		{"trailing dots do not count", join(stderr("PHP message: DB ERROR."), stdout("X-A: 1\r\n\r\nbody"), end(0)), 0, false},
		{"no match", join(stderr("PHP message: notice"), stdout("X-A: 1\r\n\r\nbody"), end(0)), 0, false},
		{"inside the header", join(stdout("X-A: 1\r\n"), stderr("DB ERROR: x"), stdout("\r\nbody"), end(0)), 0, true},
		{"a record larger than the buffer", join(stderr(strings.Repeat("x", 5000)+"DB ERROR: x"), stdout("X-A: 1\r\n\r\nbody"), end(0)), 4096, true},
		{"after the header", join(stdout("X-A: 1\r\n\r\nbody"), stderr("DB ERROR: late"), end(0)), 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			r := streamResponse(tt.data, tt.bufSize, func(b []byte) { seen = append(seen, string(b)) })
			r.stream.catch = []string{"DB ERROR:", "DB ERROR."}
			err := r.readHead()
			if caught := errors.Is(err, ErrInvalidHeader); caught != tt.caught {
				t.Fatalf("readHead: %v, caught %v, want %v", err, caught, tt.caught)
			}
			if tt.caught {
				if len(seen) != 1 {
					t.Errorf("stderr reported %q, want the record once", seen)
				}
				return
			}
			if body, err := io.ReadAll(r.Body); err != nil || string(body) != "body" {
				t.Errorf("body %q, %v", body, err)
			}
		})
	}
}
