// This file holds the PHP scripts the tests call and the helpers that read
// what they print.

package fcgitest

import (
	"net/url"
	"strings"
	"testing"
)

// phpScripts are written into every site's docroot.
var phpScripts = map[string]string{
	"hello.php": `<?php echo "hello";`,
	// env.php prints every $_SERVER entry as name=rawurlencode(value), one
	// a line, so a test sees the exact bytes PHP was given, then what PHP
	// read as the body.
	"env.php": `<?php header('Content-Type: text/plain');
ksort($_SERVER);
foreach ($_SERVER as $k => $v) { echo $k, '=', rawurlencode(is_array($v) ? implode(' ', $v) : strval($v)), "\n"; }
$in = file_get_contents('php://input');
echo '_BODY_LENGTH=', strlen($in), "\n", '_BODY_SHA256=', hash('sha256', $in), "\n";`,
	// form.php echoes the decoded query, form fields and cookies.
	"form.php": `<?php header('Content-Type: application/json');
echo json_encode(['get' => (object)$_GET, 'post' => (object)$_POST, 'cookie' => (object)$_COOKIE, 'method' => $_SERVER['REQUEST_METHOD']]);`,
	// upload.php hashes each uploaded file where PHP stored it.
	"upload.php": `<?php header('Content-Type: application/json');
$out = ['post' => $_POST, 'files' => []];
foreach ($_FILES as $field => $f) {
  $out['files'][$field] = ['name' => $f['name'], 'error' => $f['error'], 'size' => $f['size'],
    'sha256' => $f['error'] === 0 ? hash_file('sha256', $f['tmp_name']) : ''];
}
echo json_encode($out);`,
	// sha.php hashes the raw body PHP read and reports CONTENT_LENGTH.
	"sha.php": `<?php $in = file_get_contents('php://input');
echo strlen($in), ' ', $_SERVER['CONTENT_LENGTH'] ?? '-', ' ', hash('sha256', $in);`,
	// reqheader.php reports the length of a request header.
	"reqheader.php": `<?php echo strlen($_SERVER['HTTP_X_BIG'] ?? '');`,
	// idheader.php names a header after the request, so that answers
	// cannot be told apart unless each keeps its own header names.
	"idheader.php": `<?php $id = (int)$_GET['id']; header("X-Id-$id: $id"); header("X-Pad: " . str_repeat('p', $id % 300)); echo $id;`,
	// respheader.php sends a response header of n bytes.
	"respheader.php": `<?php header('X-Big: ' . str_repeat('b', (int)$_GET['n'])); echo "ok";`,
	// stream.php flushes a first chunk, then waits for the test to create
	// a file before it writes the second: the first chunk can only reach
	// the client while the script still runs if the server streams.
	"stream.php": `<?php if (isset($_GET['nobuffer'])) { header('X-Accel-Buffering: no'); }
echo "first\n"; flush();
$f = $_GET['file']; $until = microtime(true) + 20;
while (!file_exists($f) && microtime(true) < $until) { usleep(5000); clearstatcache(); }
echo file_exists($f) ? "second\n" : "timeout\n";`,
	// stderr.php writes to FCGI_STDERR through error_log() before and,
	// when streamed (?nobuffer), after its first chunk went out.
	"stderr.php": `<?php if (isset($_GET['nobuffer'])) { header('X-Accel-Buffering: no'); }
error_log('before output ' . $_GET['id']); echo "first\n"; flush();
error_log('after output ' . $_GET['id']); echo "second\n";`,
	// cookie.php sets two cookies and redirects.
	"cookie.php": `<?php setcookie('first', 'one', ['path' => '/', 'httponly' => true]);
setcookie('second', 'two words', ['path' => '/']);
header('Location: /hello.php?from=cookie', true, 302);`,
	// sleep.php sleeps, then echoes its id, so a test can match answers
	// to requests.
	"sleep.php": `<?php usleep((int)$_GET['us']); echo "slept ", $_GET['id'] ?? '';`,
	// ran.php notes which pool ran it (env[POOL] in the pool's config)
	// in a file under runs/, then sleeps like sleep.php.
	"ran.php": `<?php file_put_contents(__DIR__ . '/runs/' . getenv('POOL') . '-' . uniqid('', true), '');
usleep((int)$_GET['us']); echo "ran on ", getenv('POOL');`,
	"runs/.keep": "",
	// status.php answers with the status it is asked for.
	"status.php": `<?php http_response_code((int)$_GET['code']); echo "status ", (int)$_GET['code'];`,
	"index.php":  `<?php echo "front controller ", $_SERVER['REQUEST_URI'];`,
	// A file that is not PHP but holds PHP code, as an attacker uploads
	// it: it must never run. The pool's security.limit_extensions is
	// widened in the security tests so that only edge stands in the way.
	"uploads/evil.jpg":             `<?php echo "PWN" . "ED";`,
	"uploads/ȺȺȺȺ.php.jpg":         `<?php echo "PWN" . "ED";`,
	"sub/dir/page.php":             `<?php echo "page";`,
	"assets/style.css":             "body { color: black; }\n",
	"uploads/legit.php.txt":        "not php\n",
	"wp-content/uploads/evil.php":  `<?php echo "PWN" . "ED";`,
	"wp-content/uploads/photo.jpg": "\xff\xd8\xff\xe0jpeg",
}

func init() {
	// Copies of env.php where the params tests need a directory index
	// and a script in a subdirectory.
	phpScripts["pathinfo/index.php"] = phpScripts["env.php"]
	phpScripts["sub/dir/env.php"] = phpScripts["env.php"]
}

// parseEnv reads env.php's output into name -> decoded value.
func parseEnv(t testing.TB, body string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for line := range strings.Lines(body) {
		name, value, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if !ok {
			t.Fatalf("env.php printed %q", line)
		}
		v, err := url.PathUnescape(value)
		if err != nil {
			t.Fatalf("env.php value %q: %v", value, err)
		}
		env[name] = v
	}
	return env
}
