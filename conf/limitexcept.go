// This file holds limit_except (ngx_http_core_limit_except): a block in a
// location whose access settings (allow/deny, auth_basic) apply to every
// method but the ones it names. Its settings are the location's, merged
// as an inner level; the access phase reads them for such a method
// (proxy/access.go).
package conf

import "strings"

// LimitExcept is a location's limit_except block.
type LimitExcept struct {
	// Except are the methods the block does not apply to, in upper case;
	// GET brings HEAD.
	Except map[string]bool
	// Loc holds the block's settings, merged from its location.
	Loc *Location
}

// Applies reports whether the block applies to a request's method: any
// method it does not name, an unknown one included, as nginx's mask does.
func (le *LimitExcept) Applies(method string) bool { return !le.Except[method] }

// limitExceptMethods are the methods nginx's limit_except names.
var limitExceptMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "MKCOL", "COPY", "MOVE",
	"OPTIONS", "PROPFIND", "PROPPATCH", "LOCK", "UNLOCK", "PATCH"}

func init() {
	register(&spec{name: "limit_except", ctx: ctxLocation, args: take1More | isBlock, local: true, set: setLimitExcept})
}

func setLimitExcept(c *compiler, f *frame, d *Directive) error {
	le := &LimitExcept{Except: map[string]bool{}}
	for _, a := range d.Args {
		m := ""
		for _, name := range limitExceptMethods {
			if strings.EqualFold(a, name) {
				m = name
			}
		}
		if m == "" {
			return emergf(d, "invalid method \"%s\"", a)
		}
		le.Except[m] = true
		if m == "GET" {
			le.Except["HEAD"] = true
		}
	}
	loc := &Location{Kind: LocIf, Parent: f.loc, Name: f.loc.Name, File: d.File, Line: d.Line}
	// Merged as an inner level of the location (mergeTree).
	c.ifs[f.loc] = append(c.ifs[f.loc], loc)
	le.Loc = loc
	f.loc.LimitExcept = le
	return c.block(&frame{ctx: ctxLimitExcept, srv: f.srv, loc: loc}, d.Block)
}
