// This file runs edge as a server: it loads the configuration (a file, or
// the built-in site), tests or dumps it, sends signals to a running edge
// (-s), or serves until told to stop, reloading on HUP.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"edge/conf"
	"edge/fastcgi/fpm"
	"edge/proxy"
	"edge/proxy/listen"
)

func run(o *options) int {
	if o.version {
		printVersion(o.build)
		if o.help {
			printHelp()
		}
		if !o.test && o.signal == "" {
			return 0
		}
	}
	plan, err := load(o)
	if o.test {
		return testConfig(o, plan, err)
	}
	if err != nil {
		emerg(err)
		if o.signal != "" || os.Getenv(configWaitEnv) == "" {
			return 1
		}
		if plan = waitForConfig(o, err); plan == nil {
			return 1
		}
	}
	if o.signal != "" {
		return sendSignal(plan, o.signal)
	}
	if plan.Main.Daemon && os.Getenv(daemonEnv) == "" {
		return daemonize()
	}
	return serve(o, plan)
}

// configWaitEnv, when set (the container image sets it), makes a server
// whose configuration does not load wait for one that does instead of
// exiting: in a container the [emerg] stays the last thing in its log and
// the health check fails, where an exit would restart it in a loop. The
// file is read again every configWaitPoll and on SIGHUP.
const configWaitEnv = "EDGE_CONFIG_WAIT"

const configWaitPoll = 2 * time.Second

// waitForConfig reads the configuration until it loads and returns it,
// or returns nil when a stop signal comes first. Each new error is printed
// once (first, the one that started the wait, already was).
func waitForConfig(o *options, first error) *conf.Plan {
	fmt.Fprintf(os.Stderr, "edge: [notice] waiting for a configuration that loads (%s is set); fix the file or send SIGHUP\n", configWaitEnv)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	tick := time.NewTicker(configWaitPoll)
	defer tick.Stop()
	last := first.Error()
	for {
		select {
		case sig := <-sigs:
			if sig != syscall.SIGHUP {
				return nil
			}
		case <-tick.C:
		}
		plan, err := load(o)
		if err == nil {
			fmt.Fprintf(os.Stderr, "edge: [notice] the configuration loads now; starting\n")
			return plan
		}
		if err.Error() != last {
			last = err.Error()
			emerg(err)
		}
	}
}

// emerg prints a configuration error the way nginx does on stderr.
func emerg(err error) {
	level := "emerg"
	var ce *conf.Error
	if errors.As(err, &ce) {
		level = ce.Level.String()
	}
	fmt.Fprintf(os.Stderr, "edge: [%s] %s\n", level, err)
}

// configPath is the file named in messages.
func configPath(o *options) string {
	if o.conf == "" {
		return "<built-in site>"
	}
	return confFile(o)
}

// confFile is -c's file as nginx finds it: a relative name is under the
// -p prefix when one is given ("nginx -p /srv/site/ -c conf/nginx.conf"
// reads /srv/site/conf/nginx.conf, as nginx's test suite starts every
// server), else under the working directory (nginx would use its
// compiled-in prefix, which edge does not have).
func confFile(o *options) string {
	p := o.conf
	if o.prefix != "" && !filepath.IsAbs(p) {
		p = filepath.Join(o.prefix, p)
	}
	p, _ = filepath.Abs(p)
	return p
}

// load reads the configuration named by -c, or the built-in site. The
// command line's -p, -g and -e enter through conf.LoadOptions.
func load(o *options) (*conf.Plan, error) {
	lo := conf.LoadOptions{Prefix: o.prefix, Extra: o.extra, ErrorLog: o.errLog}
	if o.conf == "" {
		return loadDefault(lo)
	}
	path := confFile(o)
	if lo.Prefix == "" {
		lo.Prefix = filepath.Dir(path)
	}
	lo.Prefix, _ = filepath.Abs(lo.Prefix)
	lo.Builtins = true
	return conf.Load(path, lo)
}

// loadDefault builds the built-in site: ./public, or the current
// directory, on localhost. EDGE_ROOT, EDGE_HTTP_PORT and EDGE_HTTPS_PORT
// override the directory and ports.
func loadDefault(lo conf.LoadOptions) (*conf.Plan, error) {
	src, err := conf.Builtin("default.conf")
	if err != nil {
		return nil, err
	}
	cwd, _ := os.Getwd()
	root := os.Getenv("EDGE_ROOT")
	if root == "" {
		root = cwd
		if st, err := os.Stat(filepath.Join(cwd, "public")); err == nil && st.IsDir() {
			root = filepath.Join(cwd, "public")
		}
	}
	root, _ = filepath.Abs(root)
	port := envOr("EDGE_HTTP_PORT", "8080")
	// Where php-fpm is installed the site serves PHP from a pool edge
	// starts itself (conf/default-php.conf).
	_, noFPM := fpm.FindBinary("")
	phpPool, phpServer := conf.DefaultPHPParts(noFPM == nil)
	httpsPort := envOr("EDGE_HTTPS_PORT", "8443")
	text := strings.NewReplacer("{{ROOT}}", root, "{{HTTP_PORT}}", port, "{{HTTPS_PORT}}", httpsPort,
		"{{PHP_POOL}}", phpPool, "{{PHP}}", phpServer).Replace(string(src))
	if lo.Prefix == "" {
		lo.Prefix = filepath.Join(cwd, ".edge")
	}
	if err := os.MkdirAll(filepath.Join(lo.Prefix, "logs"), 0o755); err != nil {
		return nil, err
	}
	lo.ReadFile = func(path string) ([]byte, error) {
		if b, err := conf.Builtin(filepath.Base(path)); err == nil {
			return b, nil
		}
		return os.ReadFile(path)
	}
	return conf.LoadText("<built-in site>", []byte(text), lo)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// testConfig is -t and -T.
func testConfig(o *options, plan *conf.Plan, err error) int {
	path := configPath(o)
	if err != nil {
		emerg(err)
		fmt.Fprintf(os.Stderr, "edge: configuration file %s test failed\n", path)
		return 1
	}
	for _, w := range plan.Warnings {
		// -q keeps [warn] and worse, as nginx does, and drops notices
		// (such as the built-in mime.types one).
		if o.quiet && w.Level > conf.LevelWarn {
			continue
		}
		fmt.Fprintf(os.Stderr, "edge: [%s] %s\n", w.Level, w)
	}
	if !o.quiet {
		fmt.Fprintf(os.Stderr, "edge: the configuration file %s syntax is ok\n", path)
		fmt.Fprintf(os.Stderr, "edge: configuration file %s test is successful\n", path)
	}
	if o.dump {
		if o.nginx {
			fmt.Printf("# configuration file %s (edge-only directives left out):\n", path)
			fmt.Print(plan.NginxText())
			return 0
		}
		// nginx writes each file's bytes followed by one line feed, so
		// a file that ends without one still ends its line.
		for _, f := range plan.Tree.Files {
			fmt.Printf("# configuration file %s:\n", f.Path)
			os.Stdout.Write(f.Data)
			fmt.Println()
		}
	}
	return 0
}

// sendSignal is -s: it signals the edge whose pid file the
// configuration names.
func sendSignal(plan *conf.Plan, name string) int {
	sig := map[string]syscall.Signal{"stop": syscall.SIGTERM, "quit": syscall.SIGQUIT,
		"reopen": syscall.SIGUSR1, "reload": syscall.SIGHUP}[name]
	pidFile := plan.Main.PidFile
	data, err := os.ReadFile(pidFile)
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: [error] open() \"%s\" failed (%s)\n", pidFile, errnoText(err))
		return 1
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		fmt.Fprintf(os.Stderr, "edge: [error] invalid PID number \"%s\" in \"%s\"\n", strings.TrimSpace(string(data)), pidFile)
		return 1
	}
	if err := syscall.Kill(pid, sig); err != nil {
		fmt.Fprintf(os.Stderr, "edge: [error] kill(%d, %d) failed (%s)\n", pid, int(sig), errnoText(err))
		return 1
	}
	return 0
}

func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("%d: %s", int(errno), errno.Error())
	}
	return err.Error()
}

// serve runs until a stop signal.
func serve(o *options, plan *conf.Plan) int {
	runtime.GOMAXPROCS(workerCount(plan))
	// Catch the signals before the listeners are bound and the pid file
	// is written: a signal sent as soon as edge answers, or as soon as
	// the pid file names it (logrotate's USR1, "edge -s reload"), waits
	// here for the loop below. Before, one that came earlier than Notify
	// was lost: Go drops an uncaught USR1, and exits on an uncaught HUP
	// or QUIT.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGWINCH)
	startPprof()
	srv := listen.NewServer(listen.Options{})
	if err := srv.Apply(plan); err != nil {
		fmt.Fprintf(os.Stderr, "edge: [emerg] %s\n", err)
		daemonReady(err)
		return 1
	}
	log := srv.ErrorLog()
	for _, w := range plan.Warnings {
		log.Logf(w.Level, "%s", w)
	}
	if pf := plan.Main.PidFile; pf != "" {
		if err := writePid(pf); err != nil {
			log.Logf(conf.LevelEmerg, "%s", err)
			daemonReady(err)
			srv.Close()
			return 1
		}
		defer os.Remove(pf)
	}
	daemonReady(nil)
	sdNotify("READY=1\nMAINPID=" + strconv.Itoa(os.Getpid()))
	if o.conf == "" {
		announce(srv, plan)
	}
	log.Logf(conf.LevelNotice, "edge/%s (nginx/%s configuration language) started", proxy.Version, proxy.NginxVersion)

	for sig := range sigs {
		s := sig.(syscall.Signal)
		log = srv.ErrorLog()
		log.Logf(conf.LevelNotice, "signal %d (%s) received", int(s), signalName(s))
		switch s {
		case syscall.SIGHUP:
			sdNotify("RELOADING=1")
			next := reload(o, srv)
			sdNotify("READY=1")
			if next != nil {
				// QUIT's worker_shutdown_timeout is the running plan's.
				plan = next
			}
		case syscall.SIGUSR1:
			if err := srv.ReopenLogs(); err != nil {
				log.Logf(conf.LevelAlert, "reopening logs failed: %v", err)
			} else {
				log.Logf(conf.LevelNotice, "reopening logs")
			}
		case syscall.SIGQUIT:
			sdNotify("STOPPING=1")
			log.Logf(conf.LevelNotice, "gracefully shutting down")
			timeout := plan.Main.WorkerShutdownTimeout
			ctx := context.Background()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			_ = srv.Shutdown(ctx)
			log.Logf(conf.LevelNotice, "exit")
			return 0
		case syscall.SIGTERM, syscall.SIGINT:
			sdNotify("STOPPING=1")
			log.Logf(conf.LevelNotice, "exiting")
			srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			_ = srv.Shutdown(ctx)
			cancel()
			return 0
		}
	}
	return 0
}

// reload loads the configuration again and returns the plan now
// serving; on any error the running one stays, as with nginx, and reload
// returns nil.
func reload(o *options, srv *listen.Server) *conf.Plan {
	log := srv.ErrorLog()
	plan, err := load(o)
	if err != nil {
		log.Logf(conf.LevelEmerg, "%s", err)
		return nil
	}
	if err := srv.Apply(plan); err != nil {
		log.Logf(conf.LevelEmerg, "%s", err)
		return nil
	}
	runtime.GOMAXPROCS(workerCount(plan))
	log = srv.ErrorLog()
	for _, w := range plan.Warnings {
		log.Logf(w.Level, "%s", w)
	}
	log.Logf(conf.LevelNotice, "reconfiguring done")
	return plan
}

func workerCount(p *conf.Plan) int {
	if p.Main.WorkerProcesses > 0 {
		return p.Main.WorkerProcesses
	}
	return runtime.NumCPU()
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGUSR1:
		return "SIGUSR1"
	case syscall.SIGWINCH:
		return "SIGWINCH"
	}
	return s.String()
}

// writePid writes the pid file (after every listener is bound).
func writePid(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("open() \"%s\" failed (%s)", path, errnoText(err))
	}
	return nil
}

// announce prints where the built-in site is served, and how to trust
// the local CA that signs its HTTPS certificate.
func announce(srv *listen.Server, plan *conf.Plan) {
	root := plan.HTTP.Servers[0].Loc.Root.Raw
	fmt.Fprintf(os.Stderr, "edge: serving %s\n", root)
	for _, g := range plan.HTTP.Listens {
		scheme := "http"
		if g.Listen.SSL {
			scheme = "https"
		}
		fmt.Fprintf(os.Stderr, "edge:   %s://%s/\n", scheme, strings.Replace(g.Listen.Addr, "127.0.0.1", "localhost", 1))
	}
	if hint := srv.LocalCAHint(); hint != "" {
		fmt.Fprintf(os.Stderr, "edge: %s", strings.ReplaceAll(hint, "https://localhost/", "https://localhost:"+envOr("EDGE_HTTPS_PORT", "8443")+"/"))
	}
}
