// This file holds the limit modules' phases: limit_req, then limit_conn,
// in nginx's preaccess phase (the order its phase engine gives their
// handlers), each once per main request. The engines are proxy/limit's
// (docs/access.md).
package proxy

import (
	"time"

	"edge/conf"
	"edge/proxy/limit"
)

// limitState is what the limits keep for one main request.
type limitState struct {
	reqStatus  limit.ReqStatus  // $limit_req_status; ReqNone: not applied
	connStatus limit.ConnStatus // $limit_conn_status
	hold       limit.ConnHold   // limit_conn's counters, given back at the end
}

// release gives back the limit_conn counters the request holds (the
// request's end, ReleaseRequest).
func (s *limitState) release() { s.hold.Release() }

// limits runs limit_req and limit_conn for the request's location: the
// status to answer with, 0 to go on, or -1 when the client went away
// while the request was delayed (the request is then dropped, as nginx
// finalizes it with 499).
func (rt *Site) limits(r *Request) int {
	l := &r.loc.Limits
	if len(l.Req) > 0 && r.acc.lim.reqStatus == limit.ReqNone {
		if st := rt.limitReq(r, l); st != 0 {
			return st
		}
	}
	if len(l.Conn) > 0 && r.acc.lim.connStatus == limit.ConnNone {
		return rt.limitConn(r, l)
	}
	return 0
}

// limitReq is ngx_http_limit_req_handler.
func (rt *Site) limitReq(r *Request, l *conf.Limits) int {
	var keyBuf [4][]byte
	keys := keyBuf[:0]
	var limBuf [4]limit.ReqLimit
	lims := limBuf[:0]
	for _, lr := range l.Req {
		keys = append(keys, []byte(rt.eval(r, lr.Zone.Key)))
		lims = append(lims, limit.ReqLimit{Zone: lr.Zone.Zone, Burst: lr.Burst, Delay: lr.Delay})
	}
	d := limit.CheckReq(lims, keys, rt.now(), l.ReqDryRun)
	r.acc.lim.reqStatus = d.Status
	switch d.Status {
	case limit.ReqRejected, limit.ReqRejectedDryRun:
		if d.NoMemory {
			rt.log.logf(r, conf.LevelAlert, "%s", d.Message())
		} else {
			rt.log.logf(r, l.ReqLogLevel, "%s", d.Message())
		}
		if d.Status == limit.ReqRejected {
			return l.ReqStatus
		}
	case limit.ReqDelayed, limit.ReqDelayedDryRun:
		rt.log.logf(r, delayLevel(l.ReqLogLevel), "%s", d.Message())
		if d.Status == limit.ReqDelayed && d.Delay > 0 {
			return rt.limitDelay(r, d.Delay)
		}
	}
	return 0
}

// delayLevel is limit_req's delay_log_level: one level below the
// rejection's, info staying info.
func delayLevel(l conf.Level) conf.Level {
	if l == conf.LevelInfo {
		return l
	}
	return l + 1
}

// limitDelay holds a delayed request: its goroutine sleeps on a timer,
// and a stream the client resets (HTTP/2) ends the wait at once, the
// request dropped as nginx's 499.
func (rt *Site) limitDelay(r *Request, d time.Duration) int {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-r.context().Done():
		rt.log.infof(r, "client prematurely closed connection while delaying request")
		resp := r.resp
		resp.Status, resp.Drop, resp.Close, resp.Kind, resp.HeadOnly = 499, true, true, BodyNone, true
		return -1
	}
}

// limitConn is ngx_http_limit_conn_handler.
func (rt *Site) limitConn(r *Request, l *conf.Limits) int {
	var keyBuf [4][]byte
	keys := keyBuf[:0]
	var limBuf [4]limit.ConnLimit
	lims := limBuf[:0]
	for _, lc := range l.Conn {
		keys = append(keys, []byte(rt.eval(r, lc.Zone.Key)))
		lims = append(lims, limit.ConnLimit{Zone: lc.Zone.Zone, Conn: lc.Conn})
	}
	d := limit.AcquireConn(lims, keys, l.ConnDryRun, &r.acc.lim.hold)
	r.acc.lim.connStatus = d.Status
	if d.Status == limit.ConnRejected || d.Status == limit.ConnRejectedDryRun {
		if msg := d.Message(); msg != "" {
			rt.log.logf(r, l.ConnLogLevel, "%s", msg)
		}
		if d.Status == limit.ConnRejected {
			return l.ConnStatus
		}
	}
	return 0
}
