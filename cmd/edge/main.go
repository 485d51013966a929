// Command edge is a web server for PHP sites that reads nginx's
// configuration language. Its command line is nginx's (-c, -p, -e, -g,
// -t, -T, -q, -v, -V, -s), so scripts and service units written for nginx
// drive it unchanged; edge's own tools are subcommands (edge ab, edge fpm).
package main

import (
	"fmt"
	"os"
	"strings"
)

// options are the parsed command-line flags.
type options struct {
	conf    string // -c
	prefix  string // -p
	errLog  string // -e
	extra   string // -g
	test    bool   // -t
	dump    bool   // -T
	quiet   bool   // -q
	version bool   // -v
	build   bool   // -V
	help    bool   // -h, -?
	signal  string // -s
	nginx   bool   // --nginx with -T: leave out edge-only directives
}

func main() {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		os.Exit(subcommand(os.Args[1], os.Args[2:]))
	}
	o, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "edge: %s\n", err)
		os.Exit(1)
	}
	os.Exit(run(o))
}

// parseArgs reads flags the way nginx's ngx_get_options does: flags may be
// grouped ("-tq"), and a flag's value may follow it directly ("-cfile") or
// be the next argument.
func parseArgs(args []string) (*options, error) {
	o := &options{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--nginx" {
			o.nginx = true
			continue
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			return nil, fmt.Errorf("invalid option: \"%s\"", a)
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch c {
			case 't':
				o.test = true
			case 'T':
				o.test, o.dump = true, true
			case 'q':
				o.quiet = true
			case 'v':
				o.version = true
			case 'V':
				o.version, o.build = true, true
			case 'h', '?':
				o.help, o.version = true, true
			case 'c', 'p', 'e', 'g', 's':
				val := a[j+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, fmt.Errorf("option \"-%c\" requires %s", c, valueName(c))
					}
					i++
					val = args[i]
				}
				switch c {
				case 'c':
					o.conf = val
				case 'p':
					o.prefix = val
				case 'e':
					o.errLog = val
				case 'g':
					o.extra = val
				case 's':
					switch val {
					case "stop", "quit", "reopen", "reload":
						o.signal = val
					default:
						return nil, fmt.Errorf("invalid option: \"-s %s\"", val)
					}
				}
				j = len(a)
			default:
				return nil, fmt.Errorf("invalid option: \"%c\"", c)
			}
		}
	}
	return o, nil
}

func valueName(c byte) string {
	switch c {
	case 'c', 'e':
		return "file name"
	case 'p':
		return "directory name"
	}
	return "parameter"
}

// subcommand runs edge's own tools.
func subcommand(name string, args []string) int {
	switch name {
	case "help":
		printHelp()
		return 0
	case "version":
		printVersion(false)
		return 0
	case "fpm":
		return fpmCommand(args)
	case "ab":
		return abCommand(args)
	case "healthcheck":
		return healthcheckCommand(args)
	}
	fmt.Fprintf(os.Stderr, "edge: unknown command \"%s\" (run \"edge -h\")\n", name)
	return 1
}
