// This file holds the request pipeline: the phases every request goes
// through, in one fixed order. The order is nginx's phase engine and never
// depends on the order of directives in a configuration file:
//
//  1. server selection   pick server{} by Host (or SNI) on the listen group;
//     then post-read: realip with the server's settings, once per
//     request, so that logs, access, geo and limits see the client
//     (access.go)
//  2. server rewrite     the server's rewrite/if/set/return program; runs
//     again after every internal redirect
//  3. find location      "=" exact, longest prefix, "^~" stops, regexps in
//     file order, else the prefix (location.go); then
//     client_max_body_size against Content-Length (413)
//  4. location rewrite   the location's program; "last" goes back to 3,
//     at most 10 URI changes per request like nginx; then headers-more's
//     input commands (headersmore.go)
//  5. body limit         checked in 3, once the location is known and
//     before its rewrites, as nginx does
//  6. access             preaccess first: realip with the location's
//     settings when the server's changed nothing, limit_conn, limit_req
//     (limits.go), each once per main request; then allow/deny and
//     auth_basic, combined by satisfy (access.go)
//  7. try_files          files, directories, =code, @named, a final URI
//  8. content            return text | fastcgi_pass | stub_status | static
//     files with index, or autoindex's listing (static.go, autoindex.go)
//  9. header filters     not-modified, add_header/expires, charset, gzip,
//     ranges (filters.go), in nginx's filter order
//  10. log               access_log, once the body is out (accesslog.go)
//
// Handlers return a status instead of writing errors themselves; finish()
// is the one place that turns a status into error_page handling or a
// built-in error page, so internal error text never reaches a client.
package proxy

import (
	"strings"

	"edge/conf"
)

// maxURIChanges is nginx's NGX_HTTP_MAX_URI_CHANGES: rewrites with "last"
// and internal redirects a request may go through.
const maxURIChanges = 10

// step is where the pipeline goes next.
type step int

const (
	stepServerRewrite step = iota
	stepFindLocation
	stepLocationRewrite
	stepAfterRewrite
	stepDone
)

// handle runs the pipeline for one request and leaves the answer in
// r.resp. status > 0 from a phase means "answer with this status".
func (rt *Site) handle(r *Request) {
	r.uriChanges = maxURIChanges + 1
	next := stepServerRewrite
	if r.Method == "TRACE" {
		// nginx refuses TRACE once the server is known, before any phase
		// (ngx_http_process_request_header), and closes: echoing a
		// request back would hand its cookies and credentials to a
		// script (cross-site tracing); RFC 9110 9.3.8 lets a server
		// decline the method.
		rt.log.infof(r, "client sent TRACE method")
		next = rt.finish(r, 405)
		r.resp.Close = true
	} else if r.Conn.PlainHTTP {
		// ngx_http_process_request: 497, "400 The plain HTTP request was
		// sent to HTTPS port", through the server's error_page 497
		// (commonly "error_page 497 https://$host$request_uri;").
		rt.log.infof(r, "client sent plain HTTP request to HTTPS port")
		r.loc = r.srv.Loc
		next = rt.finish(r, 497)
		r.resp.Close = true
	}
	for next != stepDone {
		var status int
		next, status = rt.phase(r, next)
		if status != 0 {
			next = rt.finish(r, status)
		}
	}
	if r.parent != nil {
		rt.subrequestFilters(r)
		return
	}
	rt.filters(r)
}

// phase runs one step and says what comes next.
func (rt *Site) phase(r *Request, s step) (step, int) {
	switch s {
	case stepServerRewrite:
		r.loc = r.srv.Loc
		rt.realIP(r, &r.loc.LocConf) // post-read (access.go)
		res, status := rt.runOps(r, r.srv.Rewrite)
		if res == rwStatus {
			return stepDone, status
		}
		return stepFindLocation, 0

	case stepFindLocation:
		loc, redirect, err := findLocation(r, r.srv.Loc)
		r.loc = loc
		if err != nil {
			return stepDone, 500
		}
		if r.loc.Internal && !r.internal {
			return stepDone, 404
		}
		// nginx checks the body size as soon as a location is found
		// (ngx_http_core_find_config_phase), before its rewrites run.
		if l := r.loc; l.ClientMaxBodySize > 0 && r.ContentLength > l.ClientMaxBodySize {
			rt.log.errorf(r, "client intended to send too large body: %d bytes", r.ContentLength)
			return stepDone, 413
		}
		if redirect {
			r.resp.Header.Set("Location", autoRedirectTarget(loc.Name, r.args))
			return stepDone, 301
		}
		return stepLocationRewrite, 0

	case stepLocationRewrite:
		uri := r.uri
		res, status := rt.runOps(r, r.loc.Rewrite)
		if res != rwStatus {
			// headers-more's input commands run last in the rewrite
			// phase, even after a "rewrite ... last" (headersmore.go).
			if st := rt.moreInput(r); st != 0 {
				return stepDone, st
			}
		}
		switch res {
		case rwStatus:
			return stepDone, status
		case rwLast:
			return rt.uriChanged(r)
		case rwContinue:
			if r.uri != uri {
				return rt.uriChanged(r)
			}
		}
		// nginx's !r->valid_location, which proxy_pass reads.
		r.locChanged = res == rwBreak && r.uri != uri
		return stepAfterRewrite, 0

	case stepAfterRewrite:
		return rt.content(r)
	}
	return stepDone, 0
}

// uriChanged counts a URI change and searches the location again.
func (rt *Site) uriChanged(r *Request) (step, int) {
	r.uriChanges--
	if r.uriChanges <= 0 {
		rt.log.errorf(r, "rewrite or internal redirection cycle while processing \"%s\"", r.uri)
		return stepDone, 500
	}
	return stepFindLocation, 0
}

// content runs the access checks, try_files and the content handler.
func (rt *Site) content(r *Request) (step, int) {
	l := r.loc
	// A subrequest skips the access phase, and the limits count once per
	// main request (subrequest.go).
	if r.parent == nil {
		if status := rt.preaccessPhase(r); status > 0 {
			return stepDone, status
		} else if status < 0 {
			return stepDone, 0 // dropped (limits.go)
		}
		if status := rt.accessPhase(r); status != 0 {
			return stepDone, status
		}
	} else if status := rt.subrequestLimits(r); status > 0 {
		return stepDone, status
	} else if status < 0 {
		return stepDone, 0
	}
	if len(l.TryFiles) > 0 {
		if next, status, done := rt.tryFiles(r); done {
			return next, status
		}
	}
	switch l.Content.Kind {
	case conf.ContentFastCGI:
		return rt.fastcgi(r)
	case conf.ContentProxy:
		return rt.proxyPass(r)
	case conf.ContentStubStatus:
		return stepDone, rt.stubStatus(r)
	case conf.ContentEmptyGIF:
		return stepDone, rt.emptyGIF(r)
	case conf.ContentCachePurge:
		return stepDone, rt.cachePurgeHandler(r)
	case conf.ContentFPMStatus, conf.ContentMetrics:
		return stepDone, rt.statusHandler(r)
	}
	return rt.static(r)
}

// internalRedirect restarts the pipeline at the server rewrite phase with
// a new URI and the arguments after its "?" (none when it has no "?"), as
// try_files, error_page and X-Accel-Redirect do in nginx
// (ngx_http_split_args, then ngx_http_internal_redirect): a fallback
// "/index.php" gets no query string, "/index.php?$args" gets the
// request's.
func (rt *Site) internalRedirect(r *Request, uri string) (step, int) {
	path, args, _ := strings.Cut(uri, "?")
	return rt.redirectTo(r, path, args)
}

// redirectTo is ngx_http_internal_redirect: the pipeline restarts at the
// server rewrite phase with uri and args as they are. The index module
// calls it with the request's own arguments and an index name unsplit,
// so "index /front.php$request_uri" keeps "?a=b" in the URI, as nginx
// does.
func (rt *Site) redirectTo(r *Request, uri, args string) (step, int) {
	r.up.settle()
	r.uriChanges--
	if r.uriChanges <= 0 {
		rt.log.errorf(r, "rewrite or internal redirection cycle while internally redirecting to \"%s\"", uri)
		return stepDone, 500
	}
	r.uri = uri
	r.args = args
	r.exten = extension(uri)
	r.internal = true
	r.caps = r.caps[:0]
	return stepServerRewrite, 0
}

// namedRedirect continues in a named location (ngx_http_named_location):
// no server rewrite and no location search.
func (rt *Site) namedRedirect(r *Request, name string) (step, int) {
	loc := r.srv.Named[name]
	if loc == nil {
		rt.log.errorf(r, "could not find named location \"%s\"", name)
		return stepDone, 500
	}
	r.up.settle()
	r.uriChanges--
	if r.uriChanges <= 0 {
		rt.log.errorf(r, "rewrite or internal redirection cycle while redirect to named location \"%s\"", name)
		return stepDone, 500
	}
	r.loc = loc
	r.internal = true
	return stepLocationRewrite, 0
}

// finish turns a status from a phase into a response: an error_page
// redirect, or a built-in page (ngx_http_special_response_handler).
func (rt *Site) finish(r *Request, status int) step {
	// An error answer finalizes the upstream in nginx first.
	r.up.settle()
	if r.stub {
		// SSI's stub handler takes the status of a subrequest that ends
		// with one, in place of the error page (ssi.go).
		r.stubbed = true
		r.resp.Status = status
		r.resp.Kind = BodyNone
		return stepDone
	}
	// ngx_http_finalize_request terminates a request finalized with 408
	// (a timed-out body, or "return 408") without a response, like 444.
	if status == 444 || status == 408 {
		r.resp.Status = status
		r.resp.Drop = true
		r.resp.Close = true
		r.resp.Kind = BodyNone
		r.resp.HeadOnly = true
		return stepDone
	}
	// nginx stops keep-alive for these statuses before it looks for an
	// error page: an error page served for them closes as well.
	if closeAfter[status] {
		r.resp.Close = true
	}
	if status >= 300 && !r.errorPage && r.uriChanges > 1 {
		if ep := r.loc.ErrorPages[status]; ep != nil {
			if !r.loc.RecursiveErrorPages {
				r.errorPage = true
			}
			next, st := rt.errorPage(r, ep, status)
			if st == 0 {
				return next
			}
			status = st
		}
	}
	// ngx_http_special_response_handler sets err_status to the status it
	// answers: a status an earlier error_page kept gives way to the one
	// this answer has, so an error page that ends in "return 405", a
	// redirecting rewrite or a directory redirect answers with that
	// status (nginx-tests rewrite.t, http_error_page.t). A page that
	// answers on its own ("return 200 text", a file) keeps it.
	r.errStatus = 0
	rt.specialResponse(r, status)
	return stepDone
}

// errorPage follows one error_page mapping.
func (rt *Site) errorPage(r *Request, ep *conf.ErrorPage, status int) (step, int) {
	switch {
	case ep.Override == -1:
		r.errStatus = 0
	case ep.Override > 0:
		r.errStatus = ep.Override
	case status >= 494 && status <= 497:
		// nginx's own codes are sent as the 400 they stand for (measured:
		// "error_page 497 /page;" answers 400, not 497).
		r.errStatus = 400
	default:
		r.errStatus = status
	}
	if ep.Named != "" {
		// A named location gets the request as it is, method and body
		// included (ngx_http_send_error_page).
		return rt.namedRedirect(r, ep.Named)
	}
	if r.Method != "HEAD" {
		r.Method = "GET"
	}
	// The body of the original request is not passed on to the page.
	r.ContentLength = 0
	uri := rt.eval(r, ep.URI)
	if strings.HasPrefix(uri, "/") {
		return rt.internalRedirect(r, uri)
	}
	// An absolute URL: answer with a redirect.
	code := 302
	switch ep.Override {
	case 301, 302, 303, 307, 308:
		code = ep.Override
	}
	r.errStatus = 0
	r.resp.Header.Set("Location", uri)
	rt.specialResponse(r, code)
	return stepDone, 0
}
