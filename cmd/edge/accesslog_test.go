// This file compares edge's logs with nginx's where they leave the
// process other than as a plain file: access_log and error_log to
// syslog (over UDP and a unix datagram socket on loopback), and access
// logs whose path has variables (a file per $host, one relative to the
// prefix, none for a site whose root is missing or whose log directory
// does not exist). Both servers run the same configuration and get the
// same requests; their messages must be the same but for the time, the
// process id, the connection number and the ports.
package main

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"edge/testenv"
)

// logsHTTP is the http{} body both servers run. {{ROOT}} is the shared
// docroot, {{LOGDIR}} each server's own directory for the logs, {{UDP}}
// and {{UNIX}} its syslog listeners.
const logsHTTP = `
    log_format plain '$request $status $arg_x';
    log_format json escape=json '{"uri":"$uri"}';
    server {
        listen 127.0.0.1:{{PORT}};
        root {{ROOT}};
        access_log syslog:server={{UDP}},facility=local3,severity=notice,tag=acc plain;
        access_log syslog:server=unix:{{UNIX}},nohostname plain;
        access_log {{LOGDIR}}/$host.log plain;
        access_log logs/v-$arg_x.log plain;
        access_log {{LOGDIR}}/json-$host.log json;
        location /noroot/ { root {{ROOT}}/nothere; }
        location /nodir/ { access_log {{LOGDIR}}/nodir/$host.log plain; }
        location /cached/ {
            open_log_file_cache max=2 inactive=1m;
            access_log {{LOGDIR}}/cached-$host.log plain;
        }
    }
`

// logRequests are sent to both servers, by path and Host.
var logRequests = [][2]string{
	{"/hello.txt", "a.test"},
	{"/hello.txt?x=1", "a.test"},
	{"/missing", "b.test"},
	{"/noroot/x", "c.test"},
	{"/nodir/x", "d.test"},
	{"/cached/x?x=2", "a.test"},
	{"/cached/y?x=2", "e.test"},
	{"/cached/z?x=2", "a.test"},
	{"/a%01b%1Fc%0Ad%22e%5Cf", "j.test"}, // control bytes in escape=json
}

// datagrams collects what one syslog listener receives.
type datagrams struct {
	mu   sync.Mutex
	msgs []string
}

func (d *datagrams) listen(t *testing.T, pc net.PacketConn) {
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 65536)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			d.mu.Lock()
			d.msgs = append(d.msgs, string(buf[:n]))
			d.mu.Unlock()
		}
	}()
}

func (d *datagrams) get() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.msgs)
}

// logServer is one of the two servers with its listeners.
type logServer struct {
	name      string
	addr      string
	prefix    string // -p: relative log paths are under it
	logDir    string
	udp, unix datagrams
	udpAddr   string
	unixPath  string
	errUDP    datagrams // the error log's syslog
	errAddr   string
}

func newLogServer(t *testing.T, name string) *logServer {
	t.Helper()
	dir := t.TempDir()
	s := &logServer{name: name, logDir: filepath.Join(dir, "vlogs"), unixPath: filepath.Join(dir, "syslog.sock")}
	if err := os.MkdirAll(s.logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		d    *datagrams
		addr *string
	}{{&s.udp, &s.udpAddr}, {&s.errUDP, &s.errAddr}} {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		*l.addr = pc.LocalAddr().String()
		l.d.listen(t, pc)
	}
	uc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: s.unixPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	s.unix.listen(t, uc)
	return s
}

func (s *logServer) body(root string, port int) string {
	return strings.NewReplacer("{{PORT}}", strconv.Itoa(port), "{{ROOT}}", root, "{{LOGDIR}}", s.logDir,
		"{{UDP}}", s.udpAddr, "{{UNIX}}", s.unixPath).Replace(logsHTTP)
}

func TestLogsSyslogAndVariablePaths(t *testing.T) {
	root := t.TempDir()
	os.Chmod(root, 0o755)
	writeFile(t, filepath.Join(root, "hello.txt"), "hello\n")
	for _, d := range []string{"cached", "nodir"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	ng := newLogServer(t, "nginx")
	port := testenv.FreePort(t)
	n := testenv.StartNginx(t, testenv.NginxMain(1)+"error_log syslog:server="+ng.errAddr+",tag=errs error;\nhttp {\n"+
		testenv.NginxHTTPTemps("")+ng.body(root, port)+"}\n", port)
	ng.addr, ng.prefix = n.Addr(), n.Prefix

	ed := newLogServer(t, "edge")
	site := newSite(t, "")
	site.writeConf("daemon off;\nerror_log logs/error.log info;\nerror_log syslog:server=" + ed.errAddr + ",tag=errs error;\nevents {}\nhttp {\n" + ed.body(root, site.port) + "}\n")
	site.start()
	ed.addr, ed.prefix = site.addr, site.dir

	for _, s := range []*logServer{ng, ed} {
		for _, rq := range logRequests {
			testenv.RawHTTP(t, s.addr, "GET "+rq[0]+" HTTP/1.1\r\nHost: "+rq[1]+"\r\nConnection: close\r\n\r\n")
		}
	}
	// nginx has logged each request before closing its connection; edge
	// may log one after the next has started, so wait for as many lines.
	for _, l := range []struct {
		name   string
		ng, ed *datagrams
	}{{"access log over UDP", &ng.udp, &ed.udp}, {"access log over a unix socket", &ng.unix, &ed.unix}, {"error log over UDP", &ng.errUDP, &ed.errUDP}} {
		want := len(l.ng.get())
		if want == 0 {
			t.Fatalf("nginx sent nothing to its %s", l.name)
		}
		waitFor(t, "edge's "+l.name, func() bool { return len(l.ed.get()) >= want })
		nm, em := normalizeSyslog(t, ng, l.ng.get()), normalizeSyslog(t, ed, l.ed.get())
		if !slices.Equal(nm, em) {
			t.Errorf("%s:\nnginx:\n  %s\nedge:\n  %s", l.name, strings.Join(nm, "\n  "), strings.Join(em, "\n  "))
		}
	}
	// The files of the logs with variables: same names, same lines.
	for _, dir := range []struct{ ng, ed string }{{ng.logDir, ed.logDir}, {filepath.Join(ng.prefix, "logs"), filepath.Join(ed.prefix, "logs")}} {
		nf, ef := logFiles(t, dir.ng), logFiles(t, dir.ed)
		if len(nf) == 0 {
			t.Fatalf("nginx wrote no log files in %s", dir.ng)
		}
		for name, lines := range nf {
			if ef[name] != lines {
				t.Errorf("log file %s: nginx %q, edge %q", name, lines, ef[name])
			}
		}
		for name := range ef {
			if _, ok := nf[name]; !ok {
				t.Errorf("edge wrote log file %s, which nginx did not", name)
			}
		}
	}
}

var (
	syslogHeader = regexp.MustCompile(`(?s)^<(\d+)>[A-Z][a-z]{2} [ 1-3]\d \d\d:\d\d:\d\d (.*)$`)
	errorPrefix  = regexp.MustCompile(`\d{4}/\d\d/\d\d \d\d:\d\d:\d\d \[(\w+)\] \d+#\d+: (\*\d+ )?`)
	portSuffix   = regexp.MustCompile(`127\.0\.0\.1:\d+`)
)

// normalizeSyslog checks each message's header and returns them sorted,
// with the time, hostname, process and connection numbers, ports and
// the server's own directories replaced.
func normalizeSyslog(t *testing.T, s *logServer, msgs []string) []string {
	t.Helper()
	host, _ := os.Hostname()
	var out []string
	for _, m := range msgs {
		h := syslogHeader.FindStringSubmatch(m)
		if h == nil {
			t.Errorf("%s: %q is not an RFC 3164 message", s.name, m)
			continue
		}
		rest := strings.Replace(h[2], strings.ToLower(host)+" ", "HOST ", 1)
		rest = errorPrefix.ReplaceAllString(rest, "DATE [$1] PID: ")
		rest = portSuffix.ReplaceAllString(rest, "127.0.0.1:PORT")
		rest = strings.ReplaceAll(rest, s.logDir, "LOGDIR")
		out = append(out, "<"+h[1]+"> "+rest)
	}
	slices.Sort(out)
	return out
}

// logFiles reads the files of a directory (not its subdirectories).
func logFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".log") || e.Name() == "error.log" || e.Name() == "access.log" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
