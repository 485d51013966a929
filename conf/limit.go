// This file holds the limit_req and limit_conn modules' directives
// (ngx_http_limit_req_commands, ngx_http_limit_conn_commands). A zone is
// plan-wide: limit_req_zone and limit_conn_zone define it in http{}, and a
// limit_req or limit_conn anywhere names it, before or after its
// definition, as nginx's shared memory zones allow. The engines are
// proxy/limit's; the pipeline checks them in the preaccess phase
// (proxy/limits.go).
package conf

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"edge/proxy/limit"
)

// LimitReqZone is one limit_req_zone.
type LimitReqZone struct {
	Name string
	Key  *Script
	Size int64
	Rate limit.Rate
	// Zone holds the states; made once the whole file is read.
	Zone *limit.ReqZone
	File string
	Line int
}

// LimitConnZone is one limit_conn_zone.
type LimitConnZone struct {
	Name string
	Key  *Script
	Size int64
	Zone *limit.ConnZone
	File string
	Line int
}

// LimitReq is one limit_req directive.
type LimitReq struct {
	Zone  *LimitReqZone
	Burst int64
	Delay int64 // limit.NoDelay for nodelay
}

// LimitConn is one limit_conn directive.
type LimitConn struct {
	Zone *LimitConnZone
	Conn int
}

// Limits is a level's limit_req and limit_conn settings. The lists
// inherit as a whole, each of the other settings on its own.
type Limits struct {
	Req         []LimitReq
	ReqStatus   int   // limit_req_status, 503
	ReqLogLevel Level // limit_req_log_level, error; a delay logs one level lower
	ReqDryRun   bool

	Conn         []LimitConn
	ConnStatus   int // limit_conn_status, 503
	ConnLogLevel Level
	ConnDryRun   bool

	// Rate and RateAfter are limit_rate and limit_rate_after (bytes per
	// second, bytes), evaluated when the response is written; nil: 0.
	Rate, RateAfter *Script
}

// reqZone and connZone give the plan's zone of a name, making it at its
// first mention, which may be a limit before the zone's definition.
func (h *HTTPConf) reqZone(name string) *LimitReqZone {
	return zoneOf(&h.LimitReqZones, name, func() *LimitReqZone { return &LimitReqZone{Name: name} })
}

func (h *HTTPConf) connZone(name string) *LimitConnZone {
	return zoneOf(&h.LimitConnZones, name, func() *LimitConnZone { return &LimitConnZone{Name: name} })
}

func zoneOf[Z any](m *map[string]*Z, name string, mk func() *Z) *Z {
	if *m == nil {
		*m = map[string]*Z{}
	}
	z := (*m)[name]
	if z == nil {
		z = mk()
		(*m)[name] = z
	}
	return z
}

func init() {
	lim := func(l *LocConf) *Limits { return &l.Limits }
	status := func(name string, get func(*Limits) *int) *spec {
		return value(name, ctxHSL, take1, atLoc, func(l *LocConf) *int { return get(lim(l)) }, 503,
			func(c *compiler, d *Directive) (int, error) {
				n, err := strconv.Atoi(d.Args[0])
				if err != nil || n < 0 {
					return 0, emergf(d, "invalid number \"%s\"", d.Args[0])
				}
				if n < 400 || n > 599 {
					return 0, emergf(d, "value must be between 400 and 599")
				}
				return n, nil
			})
	}
	level := func(name string, get func(*Limits) *Level) *spec {
		return value(name, ctxHSL, take1, atLoc, func(l *LocConf) *Level { return get(lim(l)) }, LevelError,
			func(c *compiler, d *Directive) (Level, error) {
				switch d.Args[0] {
				case "info":
					return LevelInfo, nil
				case "notice":
					return LevelNotice, nil
				case "warn":
					return LevelWarn, nil
				case "error":
					return LevelError, nil
				}
				return 0, emergf(d, "invalid value \"%s\"", d.Args[0])
			})
	}
	register(
		&spec{name: "limit_req_zone", ctx: ctxHTTP, args: take3, multi: true, local: true, set: setLimitReqZone},
		(&spec{name: "limit_req", ctx: ctxHSL, args: take123, multi: true, set: setLimitReq}).
			setSlot(field(func(l *LocConf) *[]LimitReq { return &lim(l).Req }, nil)),
		status("limit_req_status", func(l *Limits) *int { return &l.ReqStatus }),
		level("limit_req_log_level", func(l *Limits) *Level { return &l.ReqLogLevel }),
		flagSlot("limit_req_dry_run", ctxHSL, atLoc, func(l *LocConf) *bool { return &lim(l).ReqDryRun }, false),

		&spec{name: "limit_conn_zone", ctx: ctxHTTP, args: take2, multi: true, local: true, set: setLimitConnZone},
		(&spec{name: "limit_conn", ctx: ctxHSL, args: take2, multi: true, set: setLimitConn}).
			setSlot(field(func(l *LocConf) *[]LimitConn { return &lim(l).Conn }, nil)),
		status("limit_conn_status", func(l *Limits) *int { return &l.ConnStatus }),
		level("limit_conn_log_level", func(l *Limits) *Level { return &l.ConnLogLevel }),
		flagSlot("limit_conn_dry_run", ctxHSL, atLoc, func(l *LocConf) *bool { return &lim(l).ConnDryRun }, false),
	)
}

// parseZoneArg reads "zone=name:size" (ngx_http_limit_req_zone's rules).
func parseZoneArg(d *Directive, a string) (name string, size int64, err error) {
	v := a[len("zone="):]
	name, sz, ok := strings.Cut(v, ":")
	if !ok {
		return "", 0, emergf(d, "invalid zone size \"%s\"", a)
	}
	if name == "" {
		return "", 0, emergf(d, "invalid zone name \"%s\"", a)
	}
	size, perr := parseSize(d, sz)
	if perr != nil || sz == "" {
		return "", 0, emergf(d, "invalid zone size \"%s\"", a)
	}
	if size < limit.MinZoneSize {
		return "", 0, emergf(d, "zone \"%s\" is too small", a)
	}
	return name, size, nil
}

// setLimitReqZone is ngx_http_limit_req_zone: a key, zone=name:size and
// rate=Nr/s or Nr/m (three arguments, as nginx 1.22 takes).
func setLimitReqZone(c *compiler, f *frame, d *Directive) error {
	key, err := c.compileScript(d, d.Args[0])
	if err != nil {
		return err
	}
	var name string
	var size int64
	rate := limit.Rate(1000)
	for _, a := range d.Args[1:] {
		switch {
		case strings.HasPrefix(a, "zone="):
			if name, size, err = parseZoneArg(d, a); err != nil {
				return err
			}
		case strings.HasPrefix(a, "rate="):
			v := a[len("rate="):]
			if !strings.HasSuffix(v, "r/s") && !strings.HasSuffix(v, "r/m") {
				return emergf(d, "invalid rate \"%s\"", a)
			}
			r, rerr := limit.ParseRate(v)
			if rerr != nil {
				return emergf(d, "invalid rate \"%s\"", a)
			}
			rate = r
		default:
			return emergf(d, "invalid parameter \"%s\"", a)
		}
	}
	if name == "" {
		return emergf(d, "\"%s\" must have \"zone\" parameter", d.Name)
	}
	z := c.plan.HTTP.reqZone(name)
	if z.Key != nil {
		return emergf(d, "%s \"%s\" is already bound to key \"%s\"", d.Name, name, z.Key.Raw)
	}
	z.Key, z.Size, z.Rate, z.File, z.Line = key, size, rate, d.File, d.Line
	return nil
}

// setLimitReq is ngx_http_limit_req: zone=name [burst=N] [nodelay |
// delay=N].
func setLimitReq(c *compiler, f *frame, d *Directive) error {
	var l LimitReq
	for _, a := range d.Args {
		switch {
		case strings.HasPrefix(a, "zone="):
			l.Zone = c.plan.HTTP.reqZone(a[len("zone="):])
		case strings.HasPrefix(a, "burst="):
			n, err := strconv.Atoi(a[len("burst="):])
			if err != nil || n <= 0 || a[len("burst=")] == '+' {
				return emergf(d, "invalid burst value \"%s\"", a)
			}
			l.Burst = int64(n)
		case strings.HasPrefix(a, "delay="):
			n, err := strconv.Atoi(a[len("delay="):])
			if err != nil || n <= 0 || a[len("delay=")] == '+' {
				return emergf(d, "invalid delay value \"%s\"", a)
			}
			l.Delay = int64(n)
		case a == "nodelay":
			l.Delay = limit.NoDelay
		default:
			return emergf(d, "invalid parameter \"%s\"", a)
		}
	}
	if l.Zone == nil {
		return emergf(d, "\"%s\" must have \"zone\" parameter", d.Name)
	}
	lim := &f.loc.LocConf.Limits
	for _, o := range lim.Req {
		if o.Zone == l.Zone {
			return emergf(d, "\"%s\" directive is duplicate", d.Name)
		}
	}
	lim.Req = append(lim.Req, l)
	return nil
}

// setLimitConnZone is ngx_http_limit_conn_zone: a key and zone=name:size.
func setLimitConnZone(c *compiler, f *frame, d *Directive) error {
	key, err := c.compileScript(d, d.Args[0])
	if err != nil {
		return err
	}
	a := d.Args[1]
	if !strings.HasPrefix(a, "zone=") {
		return emergf(d, "invalid parameter \"%s\"", a)
	}
	name, size, err := parseZoneArg(d, a)
	if err != nil {
		return err
	}
	z := c.plan.HTTP.connZone(name)
	if z.Key != nil {
		return emergf(d, "%s \"%s\" is already bound to key \"%s\"", d.Name, name, z.Key.Raw)
	}
	z.Key, z.Size, z.File, z.Line = key, size, d.File, d.Line
	return nil
}

// setLimitConn is ngx_http_limit_conn: a zone's name and a number.
func setLimitConn(c *compiler, f *frame, d *Directive) error {
	z := c.plan.HTTP.connZone(d.Args[0])
	n, err := strconv.Atoi(d.Args[1])
	if err != nil || n <= 0 || d.Args[1][0] == '+' {
		return emergf(d, "invalid number of connections \"%s\"", d.Args[1])
	}
	if n > 65535 {
		return emergf(d, "connection limit must be less 65536")
	}
	lim := &f.loc.LocConf.Limits
	for _, o := range lim.Conn {
		if o.Zone == z {
			return emergf(d, "\"%s\" directive is duplicate", d.Name)
		}
	}
	lim.Conn = append(lim.Conn, LimitConn{Zone: z, Conn: n})
	return nil
}

// finishLimits makes the zones once the file is read: a zone a limit
// names but no *_zone defines is nginx's "zero size shared memory zone".
func (c *compiler) finishLimits() error {
	h := c.plan.HTTP
	for _, name := range slices.Sorted(maps.Keys(h.LimitReqZones)) {
		z := h.LimitReqZones[name]
		if z.Key == nil {
			return &Error{Level: LevelEmerg, Msg: "zero size shared memory zone \"" + name + "\""}
		}
		zone, err := limit.NewReqZone(name, z.Size, z.Rate)
		if err != nil {
			return &Error{Level: LevelEmerg, Msg: err.Error(), File: z.File, Line: z.Line}
		}
		z.Zone = zone
	}
	for _, name := range slices.Sorted(maps.Keys(h.LimitConnZones)) {
		z := h.LimitConnZones[name]
		if z.Key == nil {
			return &Error{Level: LevelEmerg, Msg: "zero size shared memory zone \"" + name + "\""}
		}
		zone, err := limit.NewConnZone(name, z.Size)
		if err != nil {
			return &Error{Level: LevelEmerg, Msg: err.Error(), File: z.File, Line: z.Line}
		}
		z.Zone = zone
	}
	return nil
}

// String shows a limit for Dump.
func (l LimitReq) String() string {
	s := "zone=" + l.Zone.Name
	if l.Burst > 0 {
		s += " burst=" + strconv.FormatInt(l.Burst, 10)
	}
	switch {
	case l.Delay == limit.NoDelay:
		s += " nodelay"
	case l.Delay > 0:
		s += " delay=" + strconv.FormatInt(l.Delay, 10)
	}
	return s
}

// String shows a limit for Dump.
func (l LimitConn) String() string { return l.Zone.Name + " " + strconv.Itoa(l.Conn) }

// ParseSize is nginx's size for a value known only per request (a
// limit_rate with variables, "set $limit_rate") and for parseSize: a
// number with an optional k/m/g suffix; false for anything else, the
// empty string included.
func ParseSize(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1<<10, s[:len(s)-1]
	case 'm', 'M':
		mult, s = 1<<20, s[:len(s)-1]
	case 'g', 'G':
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * mult, true
}

// sizeScript reads a size that may hold variables
// (ngx_http_set_complex_value_size_slot): without variables it is checked
// now.
func sizeScript(c *compiler, d *Directive) (*Script, error) {
	s, err := c.compileScript(d, d.Args[0])
	if err != nil {
		return nil, err
	}
	if s.Static {
		if _, ok := ParseSize(d.Args[0]); !ok {
			return nil, emergf(d, "\"%s\" directive invalid value", d.Name)
		}
	}
	return s, nil
}

func init() {
	lim := func(l *LocConf) *Limits { return &l.Limits }
	register(
		value("limit_rate", ctxHSLif, take1, atLoc, func(l *LocConf) **Script { return &lim(l).Rate }, nil, sizeScript),
		value("limit_rate_after", ctxHSLif, take1, atLoc, func(l *LocConf) **Script { return &lim(l).RateAfter }, nil, sizeScript),
	)
}
