// This file holds the auth_basic module's directives
// (ngx_http_auth_basic_commands) and the core module's satisfy, which
// combines them with allow/deny. The check itself is proxy/authbasic's;
// the pipeline runs it in the access phase (proxy/access.go).
package conf

import "strings"

// AuthBasic is a level's auth_basic settings. Realm and UserFile inherit
// each on its own, as ngx_http_auth_basic_merge_loc_conf merges them.
type AuthBasic struct {
	// Realm is auth_basic: nil when not set; a value "off" (written, or
	// from a variable) turns the check off.
	Realm *Script
	// UserFile is auth_basic_user_file; a relative value is taken against
	// ConfPrefix when evaluated, as nginx's conf_prefix scripts are.
	UserFile   *Script
	ConfPrefix string
}

// Satisfy values.
const (
	SatisfyAll = "all"
	SatisfyAny = "any"
)

func init() {
	ab := func(l *LocConf) *AuthBasic { return &l.AuthBasic }
	register(
		(&spec{name: "auth_basic", ctx: ctxHSL | ctxLimitExcept, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			s, err := c.compileScript(d, d.Args[0])
			if err != nil {
				return err
			}
			ab(&f.loc.LocConf).Realm = s
			return nil
		}}).setSlot(field(func(l *LocConf) **Script { return &ab(l).Realm }, nil)),
		(&spec{name: "auth_basic_user_file", ctx: ctxHSL | ctxLimitExcept, args: take1, set: func(c *compiler, f *frame, d *Directive) error {
			a := d.Args[0]
			s, err := c.compileScript(d, a)
			if err != nil {
				return err
			}
			if s.Static {
				s = StaticScript(c.confPath(a))
			}
			l := ab(&f.loc.LocConf)
			l.UserFile = s
			l.ConfPrefix = c.confPrefix
			if l.ConfPrefix == "" {
				l.ConfPrefix = c.prefix
			}
			return nil
		}}).setSlot(fields(field(func(l *LocConf) **Script { return &ab(l).UserFile }, nil),
			field(func(l *LocConf) *string { return &ab(l).ConfPrefix }, ""))),
		enumSlot("satisfy", ctxHSL, atLoc, func(l *LocConf) *string { return &l.Satisfy }, SatisfyAll, SatisfyAll, SatisfyAny),
	)
}

// UserFilePath is the user file's path for an evaluated value: a relative
// one is under the conf prefix (ngx_get_full_name).
func (a *AuthBasic) UserFilePath(v string) string {
	if v == "" || strings.HasPrefix(v, "/") || a.ConfPrefix == "" {
		return v
	}
	return strings.TrimSuffix(a.ConfPrefix, "/") + "/" + v
}
