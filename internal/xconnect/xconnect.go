// Package xconnect turns on x/net/http2's extended CONNECT (RFC 8441,
// WebSocket over HTTP/2) for the process. x/net/http2 announces
// SETTINGS_ENABLE_CONNECT_PROTOCOL only when GODEBUG holds
// http2xconnect=1, and reads GODEBUG once, in its init; nothing can ask
// for it later. So this package's init adds the setting to GODEBUG before
// that init runs, and Restore (called by proxy/h2's init, after it)
// puts GODEBUG back, so that the processes edge starts (php-fpm, nginx
// under edge ab) see the environment edge was given.
//
// The order is the language's: packages are initialized in the order of
// their import paths among those whose imports are all initialized (the
// Go specification, "Package initialization", since Go 1.21). This
// package imports only os and strings, which x/net/http2 imports as
// well, and "edge/internal/xconnect" sorts before "golang.org/x/net/http2",
// so its init always runs first. proxy/h2's TestWebSocketOverHTTP2
// checks the outcome: edge's SETTINGS frame carries the setting.
package xconnect

import (
	"os"
	"strings"
)

const setting = "http2xconnect=1"

var (
	prior    string
	hadPrior bool
	added    bool
)

func init() {
	prior, hadPrior = os.LookupEnv("GODEBUG")
	if strings.Contains(prior, setting) {
		return
	}
	v := setting
	if prior != "" {
		v = prior + "," + setting
	}
	os.Setenv("GODEBUG", v)
	added = true
}

// Restore gives GODEBUG back its value from before init.
func Restore() {
	if !added {
		return
	}
	added = false
	if hadPrior {
		os.Setenv("GODEBUG", prior)
	} else {
		os.Unsetenv("GODEBUG")
	}
}
