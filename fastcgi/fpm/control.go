// control.go holds both sides of edge's control socket, the one protocol
// between a running edge and "edge fpm status|tune": where the socket is,
// the requests it answers (ControlHandler, for the server) and the calls
// that make them (ControlClient, for the command line).
//
// The socket is PREFIX/edge-control.sock (mode 0600; a hashed name under
// the temp directory when that path is too long for a unix socket). It
// serves HTTP:
//
//	GET  /fpm                    every pool's Report, as a JSON list
//	GET  /fpm?pool=NAME          the pools NAME selects: an fpm_pool, or
//	                             the pools behind a fastcgi_pass
//	GET  /fpm?status_path=PATH   ask PATH of the pools behind a
//	                             fastcgi_pass (default: found, pass.go)
//	POST /fpm/close-idle?pool=NAME
//	                             closes edge's kept connections to the pool
//	                             (before a reload of it); 204
//
// An error answers 404 with {"error": "..."} (reports) or a plain-text
// line (close-idle).
package fpm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// The control socket's routes.
const (
	controlReports   = "/fpm"
	controlCloseIdle = "/fpm/close-idle"
)

// ControlSocketPath is where a running edge serves its control socket
// for the configuration prefix: PREFIX/edge-control.sock, or a name under
// the temp directory derived from the prefix when that path is too long
// for a unix socket.
func ControlSocketPath(prefix string) string {
	p := filepath.Join(prefix, "edge-control.sock")
	if len(p) <= 100 {
		return p
	}
	sum := sha256.Sum256([]byte(prefix))
	return filepath.Join(os.TempDir(), "edge-control-"+hex.EncodeToString(sum[:8])+".sock")
}

// ControlServer is what the control socket serves: the running edge's
// pool manager.
type ControlServer interface {
	// Reports returns the report of the pool named ("" = every pool, in
	// name order); an error names a pool the configuration lacks.
	// statusPath is ReportInput's, for pools behind a fastcgi_pass.
	Reports(ctx context.Context, pool, statusPath string) ([]*Report, error)
	// CloseIdle closes the kept connections to the pool; false when the
	// configuration has no such pool.
	CloseIdle(pool string) bool
}

// ControlHandler serves the control socket's routes for s.
func ControlHandler(s ControlServer) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+controlReports, func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		reports, err := s.Reports(r.Context(), q.Get("pool"), q.Get("status_path"))
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
			return
		}
		json.NewEncoder(w).Encode(reports)
	})
	mux.HandleFunc("POST "+controlCloseIdle, func(w http.ResponseWriter, r *http.Request) {
		if !s.CloseIdle(r.URL.Query().Get("pool")) {
			http.Error(w, "no such pool", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// ControlClient calls a running edge's control socket.
type ControlClient struct {
	// Path is the socket's path (ControlSocketPath).
	Path string
	// StatusPath, when set, is sent with Reports: the status page the
	// running edge asks of pools behind a fastcgi_pass.
	StatusPath string
	http       *http.Client
}

// NewControlClient returns a client of the socket at path; each call
// gives up after 20s.
func NewControlClient(path string) *ControlClient {
	return &ControlClient{Path: path, http: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}}
}

// controlURL is a route on the socket (the host is never resolved).
func controlURL(route, pool string) string {
	return "http://edge" + route + "?pool=" + url.QueryEscape(pool)
}

// Reports asks the running edge for the report of the pool named (""
// = every pool). An error that says edge does not run names the socket.
func (c *ControlClient) Reports(pool string) ([]*Report, error) {
	u := controlURL(controlReports, pool)
	if c.StatusPath != "" {
		u += "&status_path=" + url.QueryEscape(c.StatusPath)
	}
	resp, err := c.http.Get(u)
	if err != nil {
		return nil, fmt.Errorf("edge is not running with this configuration (control socket %s: %v)", c.Path, unwrapNet(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		var e struct{ Error string }
		_ = json.Unmarshal(body, &e)
		return nil, errors.New(e.Error)
	}
	var reports []*Report
	if err := json.Unmarshal(body, &reports); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	return reports, nil
}

// CloseIdle asks the running edge to close its kept connections to the
// pool: a php-fpm worker waiting on one holds a reload until
// process_control_timeout. Without a running edge there is nothing to
// close, so that is no error.
func (c *ControlClient) CloseIdle(pool string) {
	resp, err := c.http.Post(controlURL(controlCloseIdle, pool), "text/plain", nil)
	if err == nil {
		resp.Body.Close()
	}
}

// unwrapNet keeps the cause of a dial error ("connection refused", "no
// such file or directory") without the address words around it.
func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	return err
}
