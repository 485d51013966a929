// This file holds limit_rate and limit_rate_after: the pacing of a
// response's bytes as nginx's write filter paces them (proxy/limit's
// Pacer), for HTTP/1 and HTTP/2 alike. The rate is limit_rate's, unless
// "set $limit_rate" or a FastCGI response's X-Accel-Limit-Rate set one
// for the request; it is taken when the response starts to go out.
package proxy

import (
	"io"
	"strconv"
	"time"

	"edge/conf"
	"edge/proxy/limit"
)

// rateState is a request's $limit_rate: set by "set", X-Accel-Limit-Rate
// or, when the response is written, limit_rate.
type rateState struct {
	set, afterSet bool
	rate, after   int64
}

// setLimitRate is "set $limit_rate": a size, or an error logged and
// nothing changed (ngx_http_variable_request_set_size).
func (rt *Site) setLimitRate(r *Request, v string) {
	n, ok := conf.ParseSize(v)
	if !ok {
		rt.log.errorf(r, "invalid size \"%s\"", v)
		return
	}
	r.acc.rate.rate, r.acc.rate.set = n, true
}

// accelLimitRate is X-Accel-Limit-Rate: bytes per second, digits only.
func (r *Request) accelLimitRate(v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && v[0] != '+' {
		r.acc.rate.rate, r.acc.rate.set = n, true
	}
}

// limitRateVar is $limit_rate.
func (r *Request) limitRateVar() string { return strconv.FormatInt(r.acc.rate.rate, 10) }

// sizeValue evaluates a limit_rate value: 0 when unset or not a size
// (logged, as ngx_http_complex_value_size does).
func (rt *Site) sizeValue(r *Request, s *conf.Script) int64 {
	if s == nil {
		return 0
	}
	v := rt.eval(r, s)
	n, ok := conf.ParseSize(v)
	if !ok {
		rt.log.errorf(r, "invalid size \"%s\"", v)
		return 0
	}
	return n
}

// Pacer gives the response's pacer, nil when its rate is 0.
func (rt *Site) Pacer(r *Request) *limit.Pacer {
	st := &r.acc.rate
	if r.loc == nil {
		return nil
	}
	if !st.set {
		st.rate, st.set = rt.sizeValue(r, r.loc.Limits.Rate), true
	}
	if st.rate <= 0 {
		return nil
	}
	// limit_rate_after is evaluated only for a rate (the write filter).
	if !st.afterSet {
		st.after, st.afterSet = rt.sizeValue(r, r.loc.Limits.RateAfter), true
	}
	p := limit.NewPacer(st.rate, st.after, r.Start)
	p.Sent(r.headerBytes()) // nginx's c->sent counts the header
	return p
}

// paceState spends a pacer's budget in sends as nginx's write filter
// does: a send takes at most the budget there is, and the pause for its
// bytes comes before the next send, so the last one ends the response at
// once. Bytes taken within one budget count as one send.
type paceState struct {
	p       *limit.Pacer
	window  int64 // what the current send may still take
	pending int64 // what it took
}

// next waits until bytes may go and says how many, at most max.
func (s *paceState) next(max int64) int64 {
	if s.window == 0 {
		if s.pending > 0 {
			time.Sleep(s.p.Sent(s.pending))
			s.pending = 0
		}
		for {
			budget, wait := s.p.Budget(time.Now())
			if budget != 0 {
				s.window = budget
				break
			}
			time.Sleep(wait)
		}
	}
	if s.window > 0 && max > s.window {
		return s.window
	}
	return max
}

// took records n bytes sent.
func (s *paceState) took(n int64) {
	if s.window > 0 {
		s.window -= n
	}
	s.pending += n
}

// PacedWriter writes through w at the pace, flushing each piece so that
// it leaves at its time.
type PacedWriter struct {
	w     io.Writer
	flush func() error
	pace  paceState
}

func (pw *PacedWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		n := pw.pace.next(int64(len(b)))
		k, err := pw.w.Write(b[:n])
		written += k
		pw.pace.took(int64(k))
		if err == nil && pw.flush != nil {
			err = pw.flush()
		}
		if err != nil {
			return written, err
		}
		b = b[k:]
	}
	return written, nil
}
