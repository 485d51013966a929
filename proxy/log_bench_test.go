// This file benchmarks the log phase: one access log line for a served
// GET, in nginx's combined format and in a JSON log_format, each formatted
// and written to a buffered file, plus the formatting alone. Sub-benchmark
// names are fixed so benchstat lines runs up.
package proxy

import (
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"edge/conf"

	"go.uber.org/zap/buffer"
)

// logBenchConf logs /combined/ in nginx's default format and /json/ in a
// JSON format, to files under {{ROOT}}/logs.
const logBenchConf = `events {}
http {
    log_format json_line escape=json '{"time":"$time_iso8601","remote":"$remote_addr","request":"$request",'
        '"status":$status,"bytes":$body_bytes_sent,"referer":"$http_referer",'
        '"agent":"$http_user_agent","request_time":$request_time}';
    server {
        listen 127.0.0.1:8080;
        server_name example.com;
        root {{ROOT}}/html;
        location /combined/ { access_log {{ROOT}}/logs/combined.log; }
        location /json/ { access_log {{ROOT}}/logs/json.log json_line; }
    }
}
`

// logBenchRequestHeaders are a browser's request headers, with a Referer
// for the combined format (benchHeaders is in bench_test.go).
var logBenchRequestHeaders = benchHeaders{
	{"Host", "example.com"},
	{"User-Agent", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"},
	{"Referer", "https://example.com/2024/01/hello-world/"},
	{"Accept", "text/plain,*/*;q=0.8"},
}

// servedLogRequest compiles logBenchConf in a temporary directory and
// serves GET path (a 1 KiB file), returning the site and the request
// as the log phase sees it.
func servedLogRequest(b testing.TB, path string) (*Site, *Request) {
	b.Helper()
	root := b.TempDir()
	for _, d := range []string{"html/combined", "html/json", "logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{"html/combined/1k.txt", "html/json/1k.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(strings.Repeat("x", 1023)+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	plan := loadTestPlan(b, root, strings.ReplaceAll(logBenchConf, "{{ROOT}}", root))
	rt := testSite(b, plan)
	r := AcquireRequest()
	r.Conn = &ConnInfo{ID: 1, Start: time.Now(), Remote: netip.MustParseAddrPort("192.0.2.10:50000"),
		Local: netip.MustParseAddrPort("127.0.0.1:8080"), Port: "8080", Group: plan.HTTP.Listens[0]}
	r.Start = time.Now()
	r.Method, r.RawTarget, r.Proto = "GET", path, "HTTP/1.1"
	r.HostHeader = "example.com"
	r.Header = logBenchRequestHeaders
	rt.Serve(r)
	if r.resp.Status != 200 || len(r.loc.AccessLogs) != 1 {
		b.Fatalf("GET %s: status %d, %d access logs", path, r.resp.Status, len(r.loc.AccessLogs))
	}
	r.bodySent = r.resp.Length
	return rt, r
}

// BenchmarkAccessLog is the cost of one access log line: "combined" and
// "json" format it and write it to the buffered log file (the log
// phase as requests run it); "format" only formats the combined line.
func BenchmarkAccessLog(b *testing.B) {
	for _, format := range []string{"combined", "json"} {
		b.Run(format, func(b *testing.B) {
			rt, r := servedLogRequest(b, "/"+format+"/1k.txt")
			b.ReportAllocs()
			for b.Loop() {
				rt.accessLog(r)
			}
		})
	}
	b.Run("format", func(b *testing.B) {
		rt, r := servedLogRequest(b, "/combined/1k.txt")
		lf := r.loc.AccessLogs[0].Format
		var line buffer.Buffer
		rt.appendLogLine(&line, r, lf)
		b.SetBytes(int64(line.Len()))
		b.ReportAllocs()
		for b.Loop() {
			line.Reset()
			rt.appendLogLine(&line, r, lf)
		}
	})
}

// The escapes of log values, as nginx 1.22.1 writes them: the default
// one (ngx_http_log_escape) and escape=json (ngx_escape_json).
func TestLogEscapes(t *testing.T) {
	for _, tc := range []struct{ in, def, json string }{
		{"", "", ""},
		{"plain /path?a=1", "plain /path?a=1", "plain /path?a=1"},
		{`say "hi"\`, `say \x22hi\x22\x5C`, `say \"hi\"\\`},
		{"\tx\ny\r\b\f\x01", `\x09x\x0Ay\x0D\x08\x0C\x01`, `\tx\ny\r\b\f\u0001`},
		{"é~\x7f", `\xC3\xA9~\x7F`, "é~\x7f"},
		{`"`, `\x22`, `\"`},
	} {
		var b buffer.Buffer
		appendDefaultEscaped(&b, tc.in)
		if got := b.String(); got != tc.def {
			t.Errorf("default escape of %q = %q, want %q", tc.in, got, tc.def)
		}
		b.Reset()
		appendJSONEscaped(&b, tc.in)
		if got := b.String(); got != tc.json {
			t.Errorf("json escape of %q = %q, want %q", tc.in, got, tc.json)
		}
	}
}

// The variables a log line appends without making their strings
// (appendLogVar) read as varValue's strings escaped would: for each
// escape mode, a request line with bytes every mode escapes, and a
// request without a line or a response.
func TestLogVarsAsVarValue(t *testing.T) {
	rt, r := servedLogRequest(t, "/combined/1k.txt")
	odd := *r
	odd.RawTarget = "/a\"b\\c\x01\xc3\xa9?q= 1"
	bare := &Request{resp: &Response{}}
	for _, req := range []*Request{r, &odd, bare} {
		for _, escape := range []string{"default", "json", "none", ""} {
			for _, id := range []conf.VarID{conf.VarStatus, conf.VarBodyBytesSent, conf.VarBytesSent, conf.VarRequest} {
				var fast, slow buffer.Buffer
				if !rt.appendLogVar(&fast, req, id, escape) {
					t.Fatalf("variable %d is not appended directly", id)
				}
				appendLogEscaped(&slow, rt.builtin(req, id), escape)
				if fast.String() != slow.String() {
					t.Errorf("%q, escape %q, variable %d: %q, varValue's %q", req.RawTarget, escape, id, fast.String(), slow.String())
				}
			}
		}
	}
}
