// This file tests the command line edge shares with nginx, against the
// real binary: -t and its error messages (the text nginx prints, file and
// line included), -T and -T --nginx, -q, -v/-V and bad flags. Where Debian's
// nginx can judge the same input, the tests ask it too, so a difference
// from nginx is a failure rather than a golden file drifting along.
package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"edge/testenv"
)

// goodConf is a small valid configuration that uses includes.
var goodConf = versionConf("v1")

func TestConfigTestOK(t *testing.T) {
	s := newSite(t, goodConf)
	res := s.edge("-t")
	if res.code != 0 {
		t.Fatalf("edge -t: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"edge: the configuration file " + s.conf + " syntax is ok\n",
		"edge: configuration file " + s.conf + " test is successful\n",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if res.stdout != "" {
		t.Errorf("stdout %q, want nothing", res.stdout)
	}
}

// TestConfigTestQuiet: -q silences the success lines and notices (here the
// one about edge's built-in mime.types), as nginx's -q does.
func TestConfigTestQuiet(t *testing.T) {
	s := newSite(t, goodConf)
	res := s.edge("-q", "-t")
	if res.code != 0 || res.stderr != "" || res.stdout != "" {
		t.Fatalf("edge -q -t: exit %d, stdout %q, stderr %q; want 0 and nothing printed", res.code, res.stdout, res.stderr)
	}
	// Grouped flags are nginx's too.
	if res := s.edge("-qt"); res.code != 0 || res.stderr != "" {
		t.Fatalf("edge -qt: exit %d, stderr %q", res.code, res.stderr)
	}
}

// configErrors are broken configurations with the line nginx prints for
// each; {CONF} and {DIR} stand for the main file and its directory.
var configErrors = []struct {
	name, conf, want string
	// nginxWant is nginx's own message where edge words it differently on
	// purpose ("" means the same as want).
	nginxWant string
}{
	{
		name: "split_clients over 100%",
		conf: "events {}\nhttp {\n    split_clients $remote_addr $v {\n        60% a;\n        50% b;\n    }\n}\n",
		want: `percent total is greater than 100% in {CONF}:6`,
	},
	{
		name: "split_clients percent",
		conf: "events {}\nhttp {\n    split_clients $remote_addr $v {\n        0.555% a;\n    }\n}\n",
		want: `invalid percent value "0.555%" in {CONF}:4`,
	},
	{
		name: "geo invalid network",
		conf: "events {}\nhttp {\n    geo $arg_ip $g {\n        default a;\n        10.0.0.0/33 b;\n    }\n}\n",
		want: `invalid network "10.0.0.0/33" in {CONF}:5`,
	},
	{
		name: "geo invalid IPv6 network",
		conf: "events {}\nhttp {\n    geo $g {\n        1::2::3 b;\n    }\n}\n",
		want: `invalid network "1::2::3" in {CONF}:4`,
	},
	{
		name: "geo delete default",
		conf: "events {}\nhttp {\n    geo $g {\n        delete default;\n    }\n}\n",
		want: `invalid network "default" in {CONF}:4`,
	},
	{
		name: "geo invalid proxy",
		conf: "events {}\nhttp {\n    geo $g {\n        proxy 10.0.0.0/x;\n    }\n}\n",
		want: `invalid network "10.0.0.0/x" in {CONF}:4`,
	},
	{
		name: "geo invalid range",
		conf: "events {}\nhttp {\n    geo $g {\n        ranges;\n        10.0.0.9-10.0.0.1 a;\n    }\n}\n",
		want: `invalid range "10.0.0.9-10.0.0.1" in {CONF}:5`,
	},
	{
		name: "geo range to 255.255.255.255",
		conf: "events {}\nhttp {\n    geo $g {\n        ranges;\n        10.0.0.0-255.255.255.255 a;\n    }\n}\n",
		want: `invalid range "10.0.0.0-255.255.255.255" in {CONF}:5`,
	},
	{
		name: "geo CIDR in ranges",
		conf: "events {}\nhttp {\n    geo $g {\n        ranges;\n        10.0.0.0/8 a;\n    }\n}\n",
		want: `invalid range "10.0.0.0/8" in {CONF}:5`,
	},
	{
		name: "geo overlapping ranges",
		conf: "events {}\nhttp {\n    geo $g {\n        ranges;\n        10.0.0.0-10.0.0.9 a;\n        10.0.0.5-10.0.0.20 b;\n    }\n}\n",
		want: `range "10.0.0.5-10.0.0.20" overlaps "10.0.0.0-10.0.0.9" in {CONF}:6`,
	},
	{
		name: "geo ranges not first",
		conf: "events {}\nhttp {\n    geo $g {\n        default a;\n        ranges;\n    }\n}\n",
		want: `the "ranges" directive must be the first directive inside "geo" block in {CONF}:5`,
	},
	{
		name: "geo parameters",
		conf: "events {}\nhttp {\n    geo $g {\n        10.0.0.0/8 a b;\n    }\n}\n",
		want: `invalid number of the geo parameters in {CONF}:4`,
	},
	{
		name: "geo block inside",
		conf: "events {}\nhttp {\n    geo $g {\n        default {\n        }\n    }\n}\n",
		want: `unexpected "{" in {CONF}:4`,
	},
	{
		name: "geo variable name",
		conf: "events {}\nhttp {\n    geo $arg_ip g {\n    }\n}\n",
		want: `invalid variable name "g" in {CONF}:3`,
	},
	{
		name: "geo builtin variable",
		conf: "events {}\nhttp {\n    geo $remote_addr {\n    }\n}\n",
		want: `the duplicate "remote_addr" variable in {CONF}:3`,
	},
	{
		name: "geo arguments",
		conf: "events {}\nhttp {\n    geo $a $b $c {\n    }\n}\n",
		want: `invalid number of arguments in "geo" directive in {CONF}:3`,
	},
	{
		name: "geo outside http",
		conf: "events {}\nhttp {\n    server {\n        geo $g {\n        }\n    }\n}\n",
		want: `"geo" directive is not allowed here in {CONF}:4`,
	},
	{
		name: "unknown directive",
		conf: "events {}\nhttp {\n    server {\n        location / {\n            fastcgi_pas 127.0.0.1:9000;\n        }\n    }\n}\n",
		want: `unknown directive "fastcgi_pas" in {CONF}:5`,
	},
	{
		name: "not allowed here",
		conf: "events {}\nhttp {\n    listen 80;\n}\n",
		want: `"listen" directive is not allowed here in {CONF}:3`,
	},
	{
		name: "invalid number of arguments",
		conf: "events {}\nhttp {\n    server {\n        root;\n    }\n}\n",
		want: `invalid number of arguments in "root" directive in {CONF}:4`,
	},
	{
		name: "unknown variable",
		conf: "events {}\nhttp {\n    server {\n        location / {\n            return 200 $foo;\n        }\n    }\n}\n",
		want: `unknown "foo" variable in {CONF}:5`,
		// nginx finds unknown variables after parsing, when it no longer
		// knows the place; edge keeps it.
		nginxWant: `unknown "foo" variable`,
	},
	{
		name: "autoindex_format value",
		conf: "events {}\nhttp {\n    autoindex_format yaml;\n}\n",
		want: `invalid value "yaml" in {CONF}:3`,
	},
	{
		name: "syslog without server",
		conf: "events {}\nhttp {\n    access_log syslog:facility=local7;\n}\n",
		want: `no syslog server specified in {CONF}:3`,
	},
	{
		name: "syslog facility",
		conf: "events {}\nhttp {\n    access_log syslog:server=127.0.0.1,facility=foo;\n}\n",
		want: `unknown syslog facility "foo" in {CONF}:3`,
	},
	{
		name: "syslog severity",
		conf: "events {}\nhttp {\n    error_log syslog:server=127.0.0.1,severity=warning;\n}\n",
		want: `unknown syslog severity "warning" in {CONF}:3`,
	},
	{
		name: "syslog tag",
		conf: "events {}\nhttp {\n    access_log syslog:server=127.0.0.1,tag=a-b;\n}\n",
		want: `syslog "tag" only allows alphanumeric characters and underscore in {CONF}:3`,
	},
	{
		name: "syslog parameter",
		conf: "events {}\nhttp {\n    access_log syslog:server=127.0.0.1,bogus;\n}\n",
		want: `unknown syslog parameter "bogus" in {CONF}:3`,
	},
	{
		name: "syslog duplicate server",
		conf: "events {}\nhttp {\n    access_log syslog:server=127.0.0.1,server=127.0.0.2;\n}\n",
		want: `duplicate syslog "server" in {CONF}:3`,
	},
	{
		name: "syslog buffered",
		conf: "events {}\nhttp {\n    access_log syslog:server=127.0.0.1 combined buffer=4k;\n}\n",
		want: `logs to syslog cannot be buffered in {CONF}:3`,
	},
	{
		name: "buffered variable path",
		conf: "events {}\nhttp {\n    access_log logs/$host.log combined buffer=4k;\n}\n",
		want: `buffered logs cannot have variables in name in {CONF}:3`,
	},
	{
		name: "proxy_pass host not found",
		conf: "events {}\nhttp {\n    server {\n        location / {\n            proxy_pass http://nosuch.invalid:8081;\n        }\n    }\n}\n",
		want: `host not found in upstream "nosuch.invalid" in {CONF}:5`,
	},
	{
		name: "fastcgi_pass host not found",
		conf: "events {}\nhttp {\n    server {\n        location / {\n            fastcgi_pass nosuch.invalid:9000;\n        }\n    }\n}\n",
		want: `host not found in upstream "nosuch.invalid" in {CONF}:5`,
	},
	{
		name: "upstream server host not found",
		conf: "events {}\nhttp {\n    upstream u {\n        server nosuch.invalid:9000;\n    }\n}\n",
		want: `host not found in upstream "nosuch.invalid:9000" in {CONF}:4`,
	},
	{
		name: "buffered log conflicting parameters",
		conf: "events {}\nhttp {\n    access_log logs/a.log combined buffer=4k;\n    server {\n        access_log logs/a.log combined buffer=8k;\n    }\n}\n",
		want: `access_log "logs/a.log" already defined with conflicting parameters in {CONF}:5`,
	},
	{
		name: "open_log_file_cache max",
		conf: "events {}\nhttp {\n    open_log_file_cache inactive=20s;\n}\n",
		want: `"open_log_file_cache" must have "max" parameter in {CONF}:3`,
	},
	{
		name: "open_log_file_cache parameter",
		conf: "events {}\nhttp {\n    open_log_file_cache max=x;\n}\n",
		want: `invalid "open_log_file_cache" parameter "max=x" in {CONF}:3`,
	},
	{
		name: "unexpected brace",
		conf: "events {}\nhttp {\n    server {\n    }\n}\n}\n",
		want: `unexpected "}" in {CONF}:6`,
	},
	{
		name: "unexpected end of file",
		conf: "events {}\nhttp {\n    server {\n",
		want: `unexpected end of file, expecting "}" in {CONF}:4`,
	},
	{
		name: "missing include",
		conf: "events {}\nhttp {\n    include missing.conf;\n}\n",
		want: `open() "{DIR}/missing.conf" failed (2: No such file or directory) in {CONF}:3`,
	},
	{
		name: "duplicate",
		conf: "events {}\nhttp {\n    server {\n        root a;\n        root b;\n    }\n}\n",
		want: `"root" directive is duplicate in {CONF}:5`,
	},
	{
		name: "no events",
		conf: "http {\n}\n",
		want: `no "events" section in configuration`,
	},
	// Regexps PCRE2 rejects, in each context that takes one (issue 14).
	{
		name: "regex location",
		conf: "events {}\nhttp {\n    server {\n        location ~ ^/(foo|bar { return 200; }\n    }\n}\n",
		want: `pcre2_compile() failed: missing closing parenthesis in "^/(foo|bar" in {CONF}:4`,
	},
	{
		name: "regex lookbehind",
		conf: "events {}\nhttp {\n    server {\n        rewrite (?<=/a+)b /c;\n    }\n}\n",
		want: `pcre2_compile() failed: lookbehind assertion is not fixed length in "(?<=/a+)b" at "(?<=/a+)b" in {CONF}:4`,
	},
	{
		name: "regex if",
		conf: "events {}\nhttp {\n    server {\n        if ($uri ~* \"[z-a]\") { return 404; }\n    }\n}\n",
		want: `pcre2_compile() failed: range out of order in character class in "[z-a]" at "a]" in {CONF}:4`,
	},
	{
		name: "regex map",
		conf: "events {}\nhttp {\n    map $uri $x {\n        \"~^(?<n>a)(?P<n>b)\" 1;\n    }\n}\n",
		want: `pcre2_compile() failed: two named subpatterns have the same name (PCRE2_DUPNAMES not set) in "^(?<n>a)(?P<n>b)" at "b)" in {CONF}:4`,
	},
	{
		name: "regex server_name",
		conf: "events {}\nhttp {\n    server {\n        server_name \"~^(\\w+)\\2\";\n    }\n}\n",
		want: `pcre2_compile() failed: reference to non-existent subpattern in "^(\w+)\2" at "2" in {CONF}:4`,
	},
	{
		name: "regex split_path_info",
		conf: "events {}\nhttp {\n    server {\n        location / {\n            fastcgi_split_path_info \"^(.+\\.php)(/.+){2,1}$\";\n        }\n    }\n}\n",
		want: `pcre2_compile() failed: numbers out of order in {} quantifier in "^(.+\.php)(/.+){2,1}$" at "}$" in {CONF}:5`,
	},
	{
		name: "regex gzip_disable",
		conf: "events {}\nhttp {\n    gzip_disable \"msie\\i\";\n}\n",
		want: `pcre2_compile() failed: unrecognized character follows \ in "msie\i" at "i" in {CONF}:3`,
	},
}

func TestConfigTestErrors(t *testing.T) {
	for _, tt := range configErrors {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.conf)
			want := strings.NewReplacer("{CONF}", s.conf, "{DIR}", s.dir).Replace(tt.want)
			res := s.edge("-t")
			if res.code != 1 {
				t.Errorf("exit %d, want 1", res.code)
			}
			wantStderr := "edge: [emerg] " + want + "\n" +
				"edge: configuration file " + s.conf + " test failed\n"
			if res.stderr != wantStderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", res.stderr, wantStderr)
			}
		})
	}
}

// nginxEmergRE finds the message of nginx's [emerg] line, printed either
// as "nginx: [emerg] MSG" or, with -e stderr, as "DATE [emerg] PID#TID: MSG".
var nginxEmergRE = regexp.MustCompile(`\[emerg\] (?:\d+#\d+: )?(.*)`)

// TestConfigTestErrorsMatchNginx runs Debian's nginx on the same broken
// files: its message must be the one the table expects from edge.
func TestConfigTestErrorsMatchNginx(t *testing.T) {
	nginx := testenv.NginxBinary(t)
	for _, tt := range configErrors {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t, tt.conf)
			want := tt.nginxWant
			if want == "" {
				want = tt.want
			}
			want = strings.NewReplacer("{CONF}", s.conf, "{DIR}", s.dir).Replace(want)
			res := runCommand(t, s.dir, nginx, "-t", "-p", s.dir+"/", "-e", "stderr", "-c", s.conf)
			m := nginxEmergRE.FindStringSubmatch(res.stderr)
			if res.code != 1 || m == nil {
				t.Fatalf("nginx -t: exit %d, stderr:\n%s", res.code, res.stderr)
			}
			if m[1] != want {
				t.Errorf("nginx says %q, the table expects %q", m[1], want)
			}
		})
	}
}

// TestConfigDump: -T prints "# configuration file PATH:" and the bytes of
// every file read, includes too, exactly as nginx -T does.
func TestConfigDump(t *testing.T) {
	s := newSite(t, "events {}\nhttp {\n    include sites/*.conf;\n}\n")
	s.write("sites/a.conf", s.expand("server {\n    listen 127.0.0.1:{{PORT}};\n    return 200 \"a\";\n}\n"))
	// No final line feed: nginx still ends the line.
	s.write("sites/b.conf", "server { listen 127.0.0.1:1; }")
	res := s.edge("-T")
	if res.code != 0 {
		t.Fatalf("edge -T: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	var want strings.Builder
	for _, f := range []string{s.conf, s.path("sites/a.conf"), s.path("sites/b.conf")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want.WriteString("# configuration file " + f + ":\n" + string(data) + "\n")
	}
	if res.stdout != want.String() {
		t.Errorf("edge -T printed:\n%s\nwant:\n%s", res.stdout, want.String())
	}
	if !strings.Contains(res.stderr, "test is successful") {
		t.Errorf("stderr lacks the success line:\n%s", res.stderr)
	}

	nres := runCommand(t, s.dir, testenv.NginxBinary(t), "-T", "-p", s.dir+"/", "-e", "stderr", "-c", s.conf)
	if nres.code != 0 {
		t.Fatalf("nginx -T: exit %d, stderr:\n%s", nres.code, nres.stderr)
	}
	if nres.stdout != res.stdout {
		t.Errorf("edge -T and nginx -T differ:\n--- edge\n%s\n--- nginx\n%s", res.stdout, nres.stdout)
	}
}

// dumpConf exercises what -T --nginx must carry over: includes, types,
// log formats, rewrites, if, regex locations, expires, FastCGI settings.
const dumpConf = `worker_processes 1;
daemon off;
error_log logs/error.log info;
events { worker_connections 768; }
http {
    include mime.types;
    default_type application/octet-stream;
    keepalive_timeout 6;
    log_format main '$remote_addr - "$request" $status $body_bytes_sent "$http_user_agent"';
    access_log logs/access.log main;
    gzip on;
    gzip_types text/plain text/css application/javascript;
    include sites/*.conf;
}
`

const dumpSite = `server {
    listen 127.0.0.1:{{PORT}};
    server_name example.com www.example.com;
    root html;
    index index.php index.html;

    location ~* \.(jpg|jpeg|gif|png|css|js|ico|xml)$ {
        access_log        off;
        log_not_found     off;
        expires           30d;
    }

    if (!-e $request_filename) {
        rewrite /(.+)/$ /index.php?q=$1 last;
        rewrite ^/(.+)$ /index.php?q=$1 last;
    }

    location = /ping { return 200 "pong\n"; }
    location /old/ { return 301 /new/; }

    location ~ \.php$ {
        fastcgi_pass 127.0.0.1:9000;
        fastcgi_index index.php;
        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
        include fastcgi_params;
    }
}
`

// TestConfigDumpForNginx: the configuration -T --nginx prints is one that
// Debian's nginx accepts.
func TestConfigDumpForNginx(t *testing.T) {
	s := newSite(t, dumpConf)
	s.write("sites/site.conf", s.expand(dumpSite))
	res := s.edge("-T", "--nginx")
	if res.code != 0 {
		t.Fatalf("edge -T --nginx: exit %d, stderr:\n%s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "fastcgi_pass 127.0.0.1:9000;") || !strings.Contains(res.stdout, "expires 30d;") {
		t.Fatalf("the dump lacks directives of the site:\n%s", res.stdout)
	}
	dumped := filepath.Join(s.dir, "dumped.conf")
	writeFile(t, dumped, res.stdout)
	nres := runCommand(t, s.dir, testenv.NginxBinary(t), "-t", "-p", s.dir+"/", "-e", "stderr", "-c", dumped)
	if nres.code != 0 || !strings.Contains(nres.stderr, "test is successful") {
		t.Fatalf("nginx -t rejects edge -T --nginx output: exit %d\n%s\n--- dumped config:\n%s", nres.code, nres.stderr, res.stdout)
	}
}

func TestVersion(t *testing.T) {
	dir := t.TempDir()
	versionRE := regexp.MustCompile(`^nginx version: nginx/1\.22\.1 \(edge/[0-9][^)]*\)\n`)
	t.Run("-v", func(t *testing.T) {
		res := runEdge(t, dir, "-v")
		if res.code != 0 || !versionRE.MatchString(res.stderr) || strings.Count(res.stderr, "\n") != 1 {
			t.Fatalf("edge -v: exit %d, stderr %q", res.code, res.stderr)
		}
	})
	t.Run("-V", func(t *testing.T) {
		res := runEdge(t, dir, "-V")
		if res.code != 0 || !versionRE.MatchString(res.stderr) {
			t.Fatalf("edge -V: exit %d, stderr %q", res.code, res.stderr)
		}
		if !regexp.MustCompile(`(?m)^configure arguments: .*--with-http_ssl_module`).MatchString(res.stderr) {
			t.Errorf("edge -V has no configure arguments line:\n%s", res.stderr)
		}
	})
}

// TestBadFlags: edge rejects flags with nginx's words and exit status;
// nginx is run on the same command lines.
func TestBadFlags(t *testing.T) {
	dir := t.TempDir()
	nginx := testenv.NginxBinary(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-x"}, `invalid option: "x"`},
		{[]string{"-tx"}, `invalid option: "x"`},
		{[]string{"-s", "foo"}, `invalid option: "-s foo"`},
		{[]string{"-c"}, `option "-c" requires file name`},
		{[]string{"-p"}, `option "-p" requires directory name`},
		{[]string{"-g"}, `option "-g" requires parameter`},
		{[]string{"-e"}, `option "-e" requires file name`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			res := runEdge(t, dir, tt.args...)
			if res.code != 1 || res.stderr != "edge: "+tt.want+"\n" {
				t.Errorf("edge: exit %d, stderr %q; want 1, %q", res.code, res.stderr, "edge: "+tt.want+"\n")
			}
			nres := runCommand(t, dir, nginx, tt.args...)
			if nres.code != 1 || nres.stderr != "nginx: "+tt.want+"\n" {
				t.Errorf("nginx: exit %d, stderr %q; the table expects %q", nres.code, nres.stderr, "nginx: "+tt.want+"\n")
			}
		})
	}
}

// TestConfRelativeToPrefix: "-p DIR -c conf/site.conf" reads
// DIR/conf/site.conf whatever the working directory, as nginx does (its
// test suite starts every server so; issue 14); without -p a relative -c
// is the working directory's.
func TestConfRelativeToPrefix(t *testing.T) {
	s := newSite(t, goodConf)
	writeFile(t, s.path("conf/site.conf"), s.expand(goodConf))
	elsewhere := t.TempDir()
	res := runEdge(t, elsewhere, "-p", s.dir+"/", "-c", "conf/site.conf", "-t")
	want := "edge: the configuration file " + s.path("conf/site.conf") + " syntax is ok\n"
	if res.code != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("edge -p DIR -c conf/site.conf -t from elsewhere: exit %d, stderr:\n%s\nwant %q", res.code, res.stderr, want)
	}
	ng := runCommand(t, elsewhere, testenv.NginxBinary(t), "-p", s.dir+"/", "-c", "conf/site.conf", "-t")
	// (nginx then misses the mime.types edge has built in: only the file
	// it read matters here.)
	if !strings.Contains(ng.stderr, "configuration file "+s.path("conf/site.conf")) {
		t.Errorf("nginx read another file:\n%s", ng.stderr)
	}
	res = runEdge(t, s.dir, "-c", "conf/site.conf", "-t")
	if res.code != 0 || !strings.Contains(res.stderr, want) {
		t.Errorf("edge -c conf/site.conf -t in DIR: exit %d, stderr:\n%s", res.code, res.stderr)
	}
}
