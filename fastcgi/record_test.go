// record_test.go tests the record encoding: headers, name-value pairs and
// the packing of params into records that php-fpm accepts.
package fastcgi

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	tests := []struct {
		typ     recType
		n       int
		wantPad int
	}{
		{typeParams, 0, 0},
		{typeStdin, 1, 7},
		{typeStdout, 8, 0},
		{typeStderr, 13, 3},
		{typeStdin, maxRecordContent, 0},
		{typeStdout, 65535, 1},
	}
	for _, tt := range tests {
		var b [headerSize]byte
		if pad := putHeader(b[:], tt.typ, tt.n); pad != tt.wantPad {
			t.Errorf("%d bytes: padding %d, want %d", tt.n, pad, tt.wantPad)
		}
		h, err := parseHeader(b[:])
		if err != nil {
			t.Fatal(err)
		}
		want := recordHeader{typ: tt.typ, id: requestID, contentLength: uint16(tt.n), paddingLength: uint8(tt.wantPad)}
		if h != want {
			t.Errorf("decoded %+v, want %+v", h, want)
		}
	}
}

func TestBeginRequest(t *testing.T) {
	tests := []struct {
		keep bool
		want []byte
	}{
		{false, []byte{1, 1, 0, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}},
		{true, []byte{1, 1, 0, 1, 0, 8, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		if got := appendBeginRequest(nil, tt.keep); !bytes.Equal(got, tt.want) {
			t.Errorf("keep=%v: % x, want % x", tt.keep, got, tt.want)
		}
	}
}

func TestPairEncoding(t *testing.T) {
	tests := []struct {
		name, value string
		wantPrefix  []byte // the encoded lengths
	}{
		{"A", "", []byte{1, 0}},
		{"SCRIPT_NAME", "/index.php", []byte{11, 10}},
		{strings.Repeat("n", 127), "v", []byte{127, 1}},
		{strings.Repeat("n", 128), "v", []byte{0x80, 0, 0, 128, 1}},
		{"N", strings.Repeat("v", 300), []byte{1, 0x80, 0, 1, 44}},
	}
	for _, tt := range tests {
		var p Params
		p.Add(tt.name, tt.value)
		if !bytes.HasPrefix(p.enc, tt.wantPrefix) || p.Len() != len(tt.wantPrefix)+len(tt.name)+len(tt.value) {
			t.Errorf("%.10q=%.10q: % x..., want prefix % x", tt.name, tt.value, p.enc[:min(len(p.enc), 6)], tt.wantPrefix)
		}
		var q Params
		q.AddBytes([]byte(tt.name), []byte(tt.value))
		if !bytes.Equal(p.enc, q.enc) {
			t.Errorf("AddBytes differs from Add")
		}
		for name, value := range p.All() {
			if string(name) != tt.name || string(value) != tt.value {
				t.Errorf("All() = %.10q=%.10q", name, value)
			}
		}
	}
}

// parseRecords splits an encoded record sequence, checking what php-fpm
// checks: version 1, content plus padding at most 65535.
func parseRecords(t *testing.T, b []byte) (types []recType, contents [][]byte) {
	t.Helper()
	br := bufio.NewReader(bytes.NewReader(b))
	for br.Buffered() > 0 || len(types) == 0 {
		h, err := readHeader(br)
		if err != nil {
			t.Fatal(err)
		}
		if int(h.contentLength)+int(h.paddingLength) > 65535 || (int(h.contentLength)+int(h.paddingLength))%8 != 0 {
			t.Fatalf("record of %d+%d bytes", h.contentLength, h.paddingLength)
		}
		c := make([]byte, int(h.contentLength)+int(h.paddingLength))
		if _, err := io.ReadFull(br, c); err != nil {
			t.Fatal(err)
		}
		types = append(types, h.typ)
		contents = append(contents, c[:h.contentLength])
		if _, err := br.Peek(1); err != nil {
			break
		}
	}
	return types, contents
}

// TestParamsPacking checks that params larger than a record are split
// between pairs, never inside one, since php-fpm decodes each record alone.
func TestParamsPacking(t *testing.T) {
	tests := []struct {
		name        string
		pairs       int
		valueLen    int
		wantRecords int // PARAMS records with content
	}{
		{"none", 0, 0, 0},
		{"few", 10, 20, 1},
		{"just one record", 1, maxRecordContent - 1 - 4 - 5, 1},
		{"two records", 3, 30000, 2},
		{"many", 200, 1000, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Params
			want := map[string]string{}
			for i := range tt.pairs {
				name, value := fmt.Sprintf("P%04d", i), strings.Repeat(string(rune('a'+i%26)), tt.valueLen)
				p.Add(name, value)
				want[name] = value
			}
			if p.Err() != nil {
				t.Fatal(p.Err())
			}
			types, contents := parseRecords(t, appendParams(nil, &p))
			got := map[string]string{}
			for i, typ := range types {
				if typ != typeParams {
					t.Fatalf("record %d has type %d", i, typ)
				}
				last := i == len(types)-1
				if last != (len(contents[i]) == 0) {
					t.Fatalf("record %d: %d bytes, last %v", i, len(contents[i]), last)
				}
				for rest := contents[i]; len(rest) > 0; {
					name, value, n, err := decodePair(rest)
					if err != nil {
						t.Fatalf("record %d does not hold whole pairs: %v", i, err)
					}
					got[string(name)] = string(value)
					rest = rest[n:]
				}
			}
			if len(types)-1 != tt.wantRecords {
				t.Errorf("%d records with content, want %d", len(types)-1, tt.wantRecords)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("decoded params differ")
			}
		})
	}
}

func TestParamTooLargeForRecord(t *testing.T) {
	var p Params
	p.Add("OK", "1")
	p.Add("HUGE", strings.Repeat("x", maxRecordContent))
	p.Add("AFTER", "2")
	if p.Err() == nil {
		t.Fatal("no error for a pair larger than a record")
	}
	var names []string
	for name := range p.All() {
		names = append(names, string(name))
	}
	if fmt.Sprint(names) != "[OK AFTER]" {
		t.Errorf("kept %v", names)
	}
	p.Reset()
	if p.Err() != nil || p.Len() != 0 {
		t.Errorf("Reset left err %v, len %d", p.Err(), p.Len())
	}
}

func TestParamsReuseDoesNotAllocate(t *testing.T) {
	var p Params
	values := make([]string, 30)
	for i := range values {
		values[i] = strings.Repeat("v", i*10)
	}
	fill := func() {
		p.Reset()
		for _, v := range values {
			p.Add("HTTP_X_HEADER", v)
		}
	}
	fill()
	if n := testing.AllocsPerRun(100, fill); n != 0 {
		t.Errorf("%v allocations per reuse", n)
	}
}

func TestDecodePairTruncated(t *testing.T) {
	for _, b := range [][]byte{{}, {5}, {0x80, 0}, {1, 0x80}, {3, 3, 'a'}, {0xff, 0xff, 0xff, 0xff, 0}} {
		if _, _, _, err := decodePair(b); err == nil {
			t.Errorf("% x: no error", b)
		}
	}
}
