// send.go holds the sending half of one request: building its opening
// records, the round trip with its one retry on a fresh connection when
// a kept one proves stale, streaming the body, and the classification
// of connection errors into the sentinels callers test for.
package fastcgi

import (
	"context"
	"edge/internal/cancel"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// roundTrip sends the request, whose head buildHead made, and reads the
// response header, retrying once on a fresh connection when a kept one
// proves stale. handed is the connection that came with the slot, if any
// (Client.handOff), and sent how much of the head handOff already wrote
// on it.
func (r *Response) roundTrip(ctx context.Context, req *Request, handed *conn, complete bool, sent int) error {
	c := r.client
	var err error
	fresh := false
	for {
		check := req.NonIdempotent || !complete
		cn := handed
		handed = nil
		if cn != nil && sent == 0 && !cn.usable(check) {
			// php-fpm closes a kept connection after a worker's last
			// request (pm.max_requests) or on reload.
			c.st.stale.Add(1)
			c.closeConn(cn)
			cn = nil
		}
		if cn != nil {
			c.reuse(cn, req)
		} else if cn, err = c.getConn(ctx, fresh, check, req); err != nil {
			return err
		}
		if sent == 0 {
			setKeepConn(r.wbuf, cn.keepConn) // handOff set it for what it wrote
		}
		r.ConnectTime, r.connected = cn.dialTime, true
		r.attach(ctx, cn, req)
		set, _ := c.idleSet()
		if !cn.reused {
			set.waiting.Add(1)
		}
		if sent > 0 {
			err = r.sendRest(sent)
			sent = 0 // a retry sends all of it
		} else {
			err = r.send(req.Body, complete)
		}
		if err == nil {
			err = r.readHead()
		}
		if !cn.reused {
			set.waiting.Add(-1)
		}
		if err == nil {
			r.Body = &r.body
			return nil
		}
		retry := !fresh && cn.reused && !r.stream.gotRecord && connGone(err) && (!req.NonIdempotent || !r.sentAny)
		err = r.fail(err) // stops the writer, so r.streamed is final
		if r.stop != nil {
			r.stop()
		}
		r.conn, r.stop = nil, nil
		c.closeConn(cn)
		if !retry || !rewind(req.Body, r.streamed) {
			return err
		}
		c.st.retries.Add(1)
		fresh = true
	}
}

// buildHead encodes BEGIN_REQUEST, the params and up to inlineBody bytes
// of the body into r.wbuf. complete reports that the body ended within
// them, in which case the empty STDIN record is included too and the
// whole request leaves in one write.
func (r *Response) buildHead(req *Request) (complete bool, err error) {
	b := appendBeginRequest(r.wbuf[:0], false) // setKeepConn decides per connection
	b = appendParams(b, &req.Params)
	complete = true
	if req.Body != nil {
		at := len(b)
		b = growLen(b, headerSize+inlineBody+8)
		n, rerr := io.ReadFull(req.Body, b[at+headerSize:at+headerSize+inlineBody])
		b = b[:at]
		if n > 0 {
			pad := putHeader(b[at:at+headerSize], typeStdin, n)
			b = b[:at+headerSize+n]
			b = append(b, zeroPad[:pad]...)
		}
		switch rerr {
		case io.EOF, io.ErrUnexpectedEOF:
		case nil:
			complete = false
		default:
			r.wbuf = b
			return false, fmt.Errorf("fastcgi: reading request body: %w", rerr)
		}
	}
	if complete {
		b = appendRecord(b, typeStdin, nil)
	}
	r.wbuf = b
	return complete, nil
}

// growLen returns b with room for n more bytes, its length unchanged in
// content but extended to len(b)+n.
func growLen(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), len(b)+n+len(b)/2)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// rewind prepares the body for a resend: nothing to do when the writer
// read none of it, a seek back when it can.
func rewind(body io.Reader, streamed int64) bool {
	if streamed == 0 {
		return true
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return false
	}
	_, err := s.Seek(-streamed, io.SeekCurrent)
	return err == nil
}

// attach binds r to a connection for one attempt.
func (r *Response) attach(ctx context.Context, cn *conn, req *Request) {
	r.conn, r.ctx = cn, ctx
	r.err, r.werr, r.streamed, r.sentAny = nil, nil, 0, false
	r.Status, r.StatusImplied, r.Reason, r.Header, r.pending = 0, false, nil, r.Header[:0], nil
	cn.canceled.Store(false)
	cn.deadlineSet = false
	r.stream.reset(cn.br, req.Stderr, req.CatchStderr)
	r.stop = cancel.AfterFunc(ctx, cn.cancelFn)
}

// send writes the opening records and, when the body is longer than what
// they hold, starts the goroutine that streams the rest.
func (r *Response) send(body io.Reader, complete bool) error {
	cn := r.conn
	var n int
	var err error
	if complete {
		n, err = cn.writeAndWait(r.wbuf)
	} else {
		n, err = cn.write(r.wbuf)
	}
	r.sentAny = n > 0
	if err != nil || complete {
		return err
	}
	// nginx starts fastcgi_read_timeout once the request is sent; until
	// the writer is done the reader waits without a deadline.
	cn.sending.Store(true)
	if cn.readTimeout > 0 {
		cn.setReadDeadline(time.Time{})
	}
	r.writing = true
	go r.sendBody(body)
	return nil
}

// sendRest finishes a complete request of which handOff wrote the first
// sent bytes: usually all of it, and the reply may be there already.
func (r *Response) sendRest(sent int) error {
	r.sentAny = true
	if sent == len(r.wbuf) {
		return nil
	}
	_, err := r.conn.writeAndWait(r.wbuf[sent:])
	return err
}

// preSend writes r's complete request on cn, the connection a finished
// request hands to r's waiting goroutine with its slot, and returns how
// much went; 0 leaves all of it to that goroutine. It runs in the
// finishing request's goroutine, so PHP has the next request before the
// waiting goroutine even runs, and that goroutine, once woken, often
// finds the reply there instead of writing and then parking until it
// comes. The write never blocks (rawConn.sendNow).
func (r *Response) preSend(cn *conn, req *Request) int {
	if !cn.usable(req.NonIdempotent) {
		return 0 // stale: the waiting goroutine finds out and dials
	}
	setKeepConn(r.wbuf, cn.keepConn)
	return cn.raw.sendNow(r.wbuf)
}

// bodyError is a failure to read Request.Body, as opposed to a failure to
// write to the backend.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return "fastcgi: reading request body: " + e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

var chunkPool = sync.Pool{New: func() any {
	b := make([]byte, headerSize+maxRecordContent+8+headerSize)
	return &b
}}

// sendBody streams the rest of the body as STDIN records, one record per
// Read, followed by the empty STDIN record. It runs on its own goroutine
// and reports on r.wdone.
func (r *Response) sendBody(body io.Reader) {
	cn := r.conn
	bp := chunkPool.Get().(*[]byte)
	buf := *bp
	var err error
	var streamed int64
	for {
		n, rerr := body.Read(buf[headerSize : headerSize+maxRecordContent])
		end := 0
		if n > 0 {
			streamed += int64(n)
			pad := putHeader(buf, typeStdin, n)
			end = headerSize + n + pad
			clear(buf[headerSize+n : end])
		}
		if rerr == io.EOF { // the closing record rides with the last chunk
			putHeader(buf[end:end+headerSize], typeStdin, 0)
			_, err = cn.write(buf[:end+headerSize])
			break
		}
		if rerr != nil {
			err = &bodyError{rerr}
			break
		}
		if end > 0 {
			if _, err = cn.write(buf[:end]); err != nil {
				break
			}
		}
	}
	chunkPool.Put(bp)
	r.streamed = streamed
	var be *bodyError
	if err != nil && (errors.As(err, &be) || isTimeout(err)) {
		// The backend waits for STDIN that will not come, and the reader
		// has no deadline yet: closing is the only way to end both.
		cn.nc.Close()
	}
	cn.sending.Store(false)
	if err == nil && cn.readTimeout > 0 {
		cn.setReadDeadline(time.Now().Add(cn.readTimeout))
	}
	r.wdone <- err
}

// settle waits for the body writer, if one runs, closing the connection
// first when closeConn is set so that a writer blocked on it returns.
func (r *Response) settle(closeConn bool) error {
	if !r.writing {
		return r.werr
	}
	if closeConn {
		r.conn.nc.Close()
	}
	r.werr = <-r.wdone
	r.writing = false
	return r.werr
}

// fail turns an error met while reading the response into the error the
// caller sees, preferring its cause: a cancelled context, a body that
// could not be read or a send timeout.
func (r *Response) fail(err error) error {
	werr := r.settle(true)
	if r.conn.canceled.Load() {
		if cerr := r.ctx.Err(); cerr != nil {
			return fmt.Errorf("fastcgi: %w", cerr)
		}
	}
	var be *bodyError
	if errors.As(werr, &be) {
		return werr
	}
	if werr != nil && isTimeout(werr) {
		err = werr
	}
	return r.client.classify(err)
}

// classify wraps a connection error in the sentinel a caller tests for.
func (c *Client) classify(err error) error {
	switch {
	case errors.Is(err, ErrProtocol), errors.Is(err, ErrInvalidHeader):
		return err
	case isTimeout(err):
		c.st.timeouts.Add(1)
		return fmt.Errorf("%w: %w", ErrTimeout, err)
	case connGone(err):
		return fmt.Errorf("%w: connection closed before the end of the response: %w", ErrProtocol, err)
	default:
		return fmt.Errorf("fastcgi: %w", err)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// connGone reports an error that means the peer had closed the connection.
func connGone(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED)
}

// notSent wraps ErrNotSent without adding words to the message.
var notSent = quietError{ErrNotSent}

type quietError struct{ err error }

func (e quietError) Error() string { return "" }
func (e quietError) Unwrap() error { return e.err }
