package logs

import (
	"path/filepath"
	"testing"
	"time"
)

// TestOpenErrorText: a log file that cannot be opened is reported in
// nginx's words, the errno's number and text ("[emerg] open()
// "/x/y.log" failed (2: No such file or directory)").
func TestOpenErrorText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "error.log")
	_, err := NewFiles(time.Now).Open(path, 0, 0)
	want := `open() "` + path + `" failed (2: No such file or directory)`
	if err == nil || err.Error() != want {
		t.Fatalf("Open: %v, want %s", err, want)
	}
}
