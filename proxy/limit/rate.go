// This file holds limit_rate / limit_rate_after: the pacing nginx's write
// filter (src/http/ngx_http_write_filter_module.c) applies to one
// response, in its arithmetic. nginx works in whole seconds of its cached
// clock for the budget and in milliseconds for the pause after a write.

package limit

import "time"

// Pacer paces the bytes of one response (or of one HTTP/2 stream: nginx
// counts a stream's own bytes). The zero Rate means no limit.
type Pacer struct {
	// Rate is limit_rate (or $limit_rate, or X-Accel-Limit-Rate) in bytes
	// per second; 0 for none.
	Rate int64
	// After is limit_rate_after in bytes: sent at full speed first.
	After int64

	startSec int64 // the request's start, whole seconds (r->start_sec)
	sent     int64 // bytes sent on the connection for this response (c->sent)
}

// NewPacer starts pacing a response whose request began at start.
func NewPacer(rate, after int64, start time.Time) *Pacer {
	return &Pacer{Rate: rate, After: after, startSec: start.Unix()}
}

// Budget is how many bytes may be written at now: nginx's
// limit = rate * (now - start + 1) - (sent - after), in whole seconds. A
// budget of zero or less means wait; the wait returned is nginx's timer,
// -limit * 1000 / rate + 1 milliseconds. With no Rate the budget is
// unlimited (-1).
func (p *Pacer) Budget(now time.Time) (budget int64, wait time.Duration) {
	if p.Rate <= 0 {
		return -1, 0
	}
	limit := p.Rate*(now.Unix()-p.startSec+1) - (p.sent - p.After)
	if limit <= 0 {
		return 0, time.Duration(-limit*1000/p.Rate+1) * time.Millisecond
	}
	return limit, 0
}

// Sent records n bytes written (headers included, as c->sent counts them)
// and returns the pause nginx takes before the next write: the bytes past
// After just sent, at Rate.
func (p *Pacer) Sent(n int64) time.Duration {
	before, after := p.sent, p.sent+n
	p.sent = after
	if p.Rate <= 0 {
		return 0
	}
	if p.After > 0 {
		before = max(before-p.After, 0)
		after = max(after-p.After, 0)
	}
	return time.Duration((after-before)*1000/p.Rate) * time.Millisecond
}
