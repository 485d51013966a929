// This file holds the site: everything built from one Plan that
// requests read while it is current (opened access logs, the plan itself).
// A reload builds a new site and swaps it in atomically; requests
// already running finish with the site they started with.
package proxy

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap/zapcore"

	"edge/cache"
	"edge/conf"
	"edge/proxy/logs"
	"edge/proxy/tlsterm"
)

// Version is edge's own version.
const Version = "0.1.0"

// Site is the per-plan state requests use: what one configuration serves
// (its servers, logs, FastCGI targets, TLS state), named for that and not
// "runtime", which is the standard package.
type Site struct {
	plan     *conf.Plan
	files    *fileCache
	log      requestLog
	errLog   *logs.ErrorLog
	hostname string
	now      func() time.Time

	accessWriters map[*conf.AccessLog]zapcore.WriteSyncer
	accessSyslogs map[*conf.AccessLog]*logs.Peer
	logFiles      *logs.Files
	stats         *Stats
	backends      *backends
	proxies       proxyBackends // proxy_pass's servers (proxypass.go)

	tls *tlsterm.State // nil without ssl listeners or ACME
	fpm *fpmManager    // the Server's FPM pools (fpm.go)

	caches map[string]*cache.Zone // fastcgi_cache_path zones by name (fastcgi_cache.go)
}

// NewSite opens what a plan needs. It fails (and the caller keeps the
// old site) when a log file cannot be opened.
func NewSite(plan *conf.Plan, shared *Shared) (*Site, error) {
	rt := &Site{
		plan:          plan,
		files:         shared.files,
		errLog:        shared.errLog,
		log:           requestLog{l: shared.errLog, levels: map[*conf.ErrorLog]*logs.ErrorLog{}, byText: map[string]*logs.ErrorLog{}},
		now:           shared.now,
		accessWriters: map[*conf.AccessLog]zapcore.WriteSyncer{},
		accessSyslogs: map[*conf.AccessLog]*logs.Peer{},
		logFiles:      shared.logFiles,
		stats:         shared.stats,
		fpm:           shared.fpm,
	}
	// $hostname is lowercased, as nginx's cycle->hostname is.
	host, _ := os.Hostname()
	rt.hostname = strings.ToLower(host)
	if plan.HTTP == nil {
		return rt, nil
	}
	seen := map[*conf.AccessLog]bool{}
	err := plan.EachLocation(func(l *conf.Location) error {
		if err := rt.log.add(l.ErrorLogs, shared.logFiles); err != nil {
			return err
		}
		for _, al := range l.AccessLogs {
			if seen[al] {
				continue
			}
			seen[al] = true
			switch {
			case al.Syslog != nil:
				rt.accessSyslogs[al] = shared.logFiles.Syslog(al.Syslog)
			case !al.Path.Static:
				// A path with variables is opened per line (logpath.go).
			default:
				w, err := shared.logFiles.Open(al.Path.Raw, al.Buffer, al.Flush)
				if err != nil {
					return err
				}
				rt.accessWriters[al] = w
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	caches, err := shared.caches.open(plan, shared.errLog)
	if err != nil {
		return nil, err
	}
	rt.caches = caches
	b, err := newBackends(plan, shared)
	if err != nil {
		return nil, err
	}
	rt.backends = b
	if rt.tls, err = tlsterm.New(plan, &shared.tls, shared.errLog); err != nil {
		return nil, err
	}
	return rt, nil
}

// Shared is what outlives runtimes: the file cache, log files, counters.
type Shared struct {
	files    *fileCache
	logFiles *logs.Files
	errLog   *logs.ErrorLog
	now      func() time.Time
	stats    *Stats
	pools    sync.Map       // FastCGI clients by address, kept across reloads
	tls      tlsterm.Shared // certificate cache, ticket keys, local CA
	fpm      *fpmManager    // supervised and attached php-fpm pools (fpm.go)
	caches   cacheZones     // cache zones, kept across reloads (fastcgi_cache.go)
}

var requestPool = sync.Pool{New: func() any { return &Request{resp: &Response{}} }}

// requestsInFlight counts requests between acquire and release: nginx's
// "Writing" in stub_status (a request is read by the engine before edge
// sees it, so "Reading" stays 0).
var requestsInFlight atomic.Int64

func AcquireRequest() *Request {
	requestsInFlight.Add(1)
	return requestPool.Get().(*Request)
}

func ReleaseRequest(r *Request) {
	requestsInFlight.Add(-1)
	r.acc.lim.release()
	resp := r.resp
	resp.Header.reset()
	list := resp.Header.list
	*resp = Response{}
	resp.Header.list = list
	r.reset()
	r.resp = resp
	requestPool.Put(r)
}
