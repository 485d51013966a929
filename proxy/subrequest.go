// This file holds subrequests (nginx's ngx_http_subrequest): a request
// the pipeline makes for a URI on behalf of another one, served by the
// same server{} through the same phases (server rewrite, location search,
// rewrites, try_files, content), whose response body the caller takes in
// place of a client. SSI's include is the first caller (ssi.go); the shape
// is that of any module's (auth_request, mirror). A subrequest:
//
//   - is a GET for its URI and arguments (nginx's sr->method), with the
//     parent's headers, connection, $request_uri, $request_method and
//     Host, and the main request's body where it was read into memory
//     (nginx shares it; docs/nginx-differences.md);
//   - is internal (it reaches "internal" locations), skips the access
//     phase (nginx skips it for r != r->main), and meets limit_req and
//     limit_conn only where its main request has not (they count once
//     per main request);
//   - passes through the SSI filter only of the response filters (the
//     others apply to the main response: nginx's not-modified, headers,
//     gzip, range and header filters skip subrequests);
//   - is access-logged only with log_subrequest on;
//   - may be at most 50 deep (NGX_HTTP_MAX_SUBREQUESTS).
package proxy

import (
	"bytes"
	"errors"
	"io"
)

// maxSubrequests is NGX_HTTP_MAX_SUBREQUESTS: a main request starts with
// one more than it, and each level of subrequests takes one, so that 51
// nest.
const maxSubrequests = 50

// errTooBigSubrequest ends a response whose in-memory subrequest
// outgrew subrequest_output_buffer_size (nginx finalizes the main
// request with NGX_ERROR: the client gets what was sent, then a close).
var errTooBigSubrequest = errors.New("too big subrequest response")

// errSubrequestClosed ends a response one of whose subrequests closed
// the connection (return 444): nginx's NGX_HTTP_CLOSE in a subrequest
// terminates the main request, so the client gets what was out, then a
// close.
var errSubrequestClosed = errors.New("subrequest closed the connection")

// mainRequest is the request at the top of r's subrequests.
func (r *Request) mainRequest() *Request {
	for r.parent != nil {
		r = r.parent
	}
	return r
}

// subDepth is how many subrequests r is below its main request.
func (r *Request) subDepth() int {
	n := 0
	for p := r.parent; p != nil; p = p.parent {
		n++
	}
	return n
}

// newSubrequest makes the subrequest of r for uri (decoded, as $uri) and
// args; nil with the log line nginx writes when r is too deep already.
func (rt *Site) newSubrequest(r *Request, uri, args string) *Request {
	if r.subDepth() > maxSubrequests {
		rt.ssiErrorf(r, "subrequests cycle while processing \"%s\"", uri)
		return nil
	}
	sr := &Request{resp: &Response{}}
	sr.Method = "GET"
	sr.RawTarget = r.RawTarget
	sr.Proto = r.Proto
	sr.HostHeader, sr.HostEmpty = r.HostHeader, r.HostEmpty
	sr.Header = r.Header
	// The main request's body, where it was read into memory, is the
	// subrequest's too (nginx shares r->request_body); a body that was
	// not read, or went to a temporary file, is not passed on.
	sr.bodyLength = -1
	if m := r.mainRequest(); m.bodyMem != nil {
		sr.Body = bytes.NewReader(m.bodyMem)
		sr.ContentLength = int64(len(m.bodyMem))
		sr.bodyMem = m.bodyMem
	}
	sr.RequestLength = r.RequestLength
	sr.Conn = r.Conn
	sr.ConnRequests = r.ConnRequests
	sr.Start = r.Start
	sr.Ctx = r.Ctx
	// realip's answer holds for the whole request, as nginx changes the
	// connection's address.
	sr.acc.realipDone, sr.acc.real, sr.acc.realText = r.acc.realipDone, r.acc.real, r.acc.realText
	sr.rt = rt
	sr.srv = r.srv
	sr.loc = r.srv.Loc
	sr.host = r.host
	sr.requestID = r.mainRequest().requestID
	sr.uri, sr.args, sr.exten = uri, args, extension(uri)
	sr.internal = true
	sr.parent = r
	return sr
}

// serveSubrequest runs sr through the pipeline.
func (rt *Site) serveSubrequest(sr *Request) {
	rt.handle(sr)
}

// subrequestLimits applies the subrequest's location's limit_req and
// limit_conn where its main request has met none: nginx keeps their
// state in the main request (r->main->limit_req_status), so they count
// once per main request, and a limit_conn counter a subrequest takes is
// held until the main request ends.
func (rt *Site) subrequestLimits(r *Request) int {
	rt.realIP(r, &r.loc.LocConf)
	m := r.mainRequest()
	r.acc.lim = m.acc.lim
	status := rt.limits(r)
	m.acc.lim, r.acc.lim = r.acc.lim, limitState{}
	return status
}

// subrequestFilters are the response filters a subrequest goes through
// (see the top of this file).
func (rt *Site) subrequestFilters(r *Request) {
	if r.errStatus != 0 {
		r.resp.Status = r.errStatus
	}
	rt.ssiFilter(r)
}

// subrequestBody writes sr's body to w, then lets go of what held it and
// writes sr's access log lines where log_subrequest is on. It returns
// how many bytes it wrote.
func (rt *Site) subrequestBody(sr *Request, w io.Writer) (int64, error) {
	resp := sr.resp
	cw := &CountWriter{W: w}
	var err error
	if !resp.Drop {
		switch resp.Kind {
		case BodyBytes:
			_, err = cw.Write(resp.Bytes)
		case BodyFile:
			_, err = io.Copy(cw, io.NewSectionReader(resp.File, resp.Offset, resp.Length))
		case BodyStream:
			err = resp.Stream(cw, func() error { return nil })
		}
	}
	if resp.Kind == BodyFile && resp.CloseFile && resp.File != nil {
		resp.File.Close()
	}
	resp.Release()
	sr.bodySent = cw.N
	sr.up.settle()
	if sr.loc != nil && sr.loc.LogSubrequest {
		rt.accessLog(sr)
	}
	return cw.N, err
}

// boundedBuffer keeps a subrequest's body in memory up to max bytes
// (subrequest_output_buffer_size), as nginx's in-memory output does.
type boundedBuffer struct {
	b   []byte
	max int
}

func (bb *boundedBuffer) Write(p []byte) (int, error) {
	if len(bb.b)+len(p) > bb.max {
		return 0, errTooBigSubrequest
	}
	bb.b = append(bb.b, p...)
	return len(p), nil
}

// subrequestInMemory serves sr and returns its body, bounded by its
// location's subrequest_output_buffer_size; past it the error is
// errTooBigSubrequest, logged as nginx logs it.
func (rt *Site) subrequestInMemory(sr *Request) ([]byte, error) {
	rt.serveSubrequest(sr)
	max := int(sr.loc.SubrequestOutputBufferSize)
	resp := sr.resp
	known := int64(-1)
	switch resp.Kind {
	case BodyBytes:
		known = int64(len(resp.Bytes))
	case BodyFile:
		known = resp.Length
	case BodyStream:
		known = resp.Length
	}
	if !resp.Drop && known > int64(max) {
		rt.ssiErrorf(sr, "too big subrequest response: %d", known)
		_, _ = rt.subrequestBody(sr, io.Discard)
		return nil, errTooBigSubrequest
	}
	bb := &boundedBuffer{max: max}
	_, err := rt.subrequestBody(sr, bb)
	if errors.Is(err, errTooBigSubrequest) {
		rt.ssiErrorf(sr, "too big subrequest response")
	}
	return bb.b, err
}
