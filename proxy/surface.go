// This file is the pipeline's surface for the packages around it. An
// engine adapter (proxy/h1, proxy/h2) takes a Request from
// AcquireRequest, fills it from its engine (method, target, protocol,
// Host, a HeaderSource, the body, the connection's ConnInfo), calls
// Site.Serve, writes r.Response() out, calls Site.Done once the body is
// out, then ReleaseRequest. The listener (proxy/listen) makes the Shared
// state once, a Site per plan (NewSite), and a ConnInfo per connection.
// Nothing here or in the pipeline names an engine, a socket's listener
// or parking (imports_test.go).
package proxy

import (
	"io"
	"time"

	"edge/conf"
	"edge/proxy/limit"
	"edge/proxy/logs"
	"edge/proxy/tlsterm"
)

// Response is the response the pipeline produced for r.
func (r *Request) Response() *Response { return r.resp }

// Server is the server{} serving r; nil before one is chosen.
func (r *Request) Server() *conf.Server { return r.srv }

// AtDefault makes r, which an adapter answers before the pipeline runs
// (a head it refuses), the default server srv's, as nginx logs and
// answers such a request.
func (rt *Site) AtDefault(r *Request, srv *conf.Server) {
	r.rt = rt
	r.srv = srv
	r.loc = srv.Loc
}

// Retire tells a site that it takes no more requests (a newer one is in
// force, or the server stops): it closes its idle upstream connections,
// as nginx's old workers do; requests it still serves go on.
func (rt *Site) Retire() { rt.proxies.close() }

// Infof writes an [info] line about r to the error log, with nginx's
// context of the request.
func (rt *Site) Infof(r *Request, format string, args ...any) {
	rt.log.infof(r, format, args...)
}

// Now is the site's clock.
func (rt *Site) Now() time.Time { return rt.now() }

// ErrorLog is the error log the site writes.
func (rt *Site) ErrorLog() *logs.ErrorLog { return rt.errLog }

// ConnErrorLog is where a connection of g logs what concerns no request
// (a client that timed out, an HTTP/2 flood, a failed handshake): its
// default server's error_log, as nginx starts a connection's log there,
// else the main level's. g may be an earlier plan's.
func (rt *Site) ConnErrorLog(g *conf.ListenGroup) *logs.ErrorLog {
	if g == nil || g.Default == nil || g.Default.Loc == nil {
		return rt.errLog
	}
	return rt.log.forList(g.Default.Loc.ErrorLogs)
}

// RequestErrorLogs is the error_log list r's messages go to (nil: the
// main level's), for ErrorLogOf once r has ended (see requestLog.of).
func (rt *Site) RequestErrorLogs(r *Request) []conf.ErrorLog { return rt.log.lists(r) }

// ErrorLogOf is the error log of a level's error_log list (nil: the main
// level's), in this site or an earlier one.
func (rt *Site) ErrorLogOf(list []conf.ErrorLog) *logs.ErrorLog { return rt.log.forList(list) }

// TLS is the site's TLS termination; nil without ssl listeners or
// ACME.
func (rt *Site) TLS() *tlsterm.State { return rt.tls }

// Pooled reports whether Bytes is a pooled buffer that release gives
// back, which an adapter writing later must copy first.
func (resp *Response) Pooled() bool { return resp.pooled != nil }

// Len is the number of header lines.
func (h *ResponseHeader) Len() int { return len(h.list) }

// At is the i-th header line.
func (h *ResponseHeader) At(i int) (name, value string) {
	return h.list[i].name, h.list[i].value
}

// NewPacedWriter writes through w at pace p (limit_rate), calling flush
// after each piece.
func NewPacedWriter(w io.Writer, flush func() error, p *limit.Pacer) *PacedWriter {
	return &PacedWriter{w: w, flush: flush, pace: paceState{p: p}}
}

// Flush flushes what was written.
func (pw *PacedWriter) Flush() error { return pw.flush() }

// NewShared makes the state that outlives plans; current returns the
// site in force (the FPM pools' status pages ask it).
func NewShared(errLog *logs.ErrorLog, now func() time.Time, current func() *Site) *Shared {
	sh := &Shared{
		files:    newFileCache(time.Second, now),
		logFiles: logs.NewFiles(now),
		errLog:   errLog,
		now:      now,
		stats:    &Stats{},
	}
	sh.logFiles.Alert = func(msg string) { sh.errLog.Logf(conf.LevelAlert, "%s", msg) }
	sh.fpm = newFPMManager(sh, current)
	return sh
}

// ErrorLog is the one error log every plan writes through.
func (sh *Shared) ErrorLog() *logs.ErrorLog { return sh.errLog }

// Stats are stub_status's counters.
func (sh *Shared) Stats() *Stats { return sh.stats }

// Logs are the log files, kept across plans.
func (sh *Shared) Logs() *logs.Files { return sh.logFiles }

// StartPools starts the php-fpm pools plan runs before it serves; undo
// stops what it started, for a plan that fails later.
func (sh *Shared) StartPools(plan *conf.Plan) (undo func(), err error) { return sh.fpm.apply(plan) }

// CommitPools makes plan's pools current once it serves (fpmManager.commit).
func (sh *Shared) CommitPools(plan *conf.Plan) { sh.fpm.commit(plan) }

// Stop stops the php-fpm pools (gracefully: letting requests finish)
// and closes the cache zones.
func (sh *Shared) Stop(graceful bool) {
	sh.fpm.shutdown(graceful)
	sh.caches.closeAll()
}
