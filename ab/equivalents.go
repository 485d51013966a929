// This file keeps the comparison fair (issue 19): edge does some things
// whatever its configuration says (it caches open files, keeps FastCGI
// connections), which nginx does only when
// told. The built-in site tells nginx each of them; with a user's
// configuration the report lists those the configuration does not ask
// nginx for, so a reader knows where a lead may come from.

package ab

import (
	"strings"

	"edge/conf"
)

// alwaysOn is one thing edge does by default, nginx's directives for it,
// and how to see that a configuration already asks nginx for it.
type alwaysOn struct {
	edge  string // what edge does
	nginx string // nginx's equivalent, as the built-in site writes it
	given func(t *conf.Tree) bool
}

var alwaysOnFeatures = []alwaysOn{
	{
		edge: "edge caches open files' metadata (checked again every second) and small files' bytes",
		nginx: "open_file_cache max=10000 inactive=60s; open_file_cache_valid 1s; " +
			"open_file_cache_errors on;",
		given: func(t *conf.Tree) bool { return anyDirective(t, isOn("open_file_cache")) },
	},
	{
		edge:  "edge keeps its FastCGI connections to php-fpm open between requests",
		nginx: "an upstream with keepalive 1 (edge's bound for a bare address), and fastcgi_keep_conn on;",
		given: func(t *conf.Tree) bool { return anyDirective(t, isOn("fastcgi_keep_conn")) },
	},
}

// builtinEquivalents is the note for the built-in site: what nginx was
// given so that it does what edge does by default.
func builtinEquivalents() string {
	parts := make([]string, len(alwaysOnFeatures))
	for i, f := range alwaysOnFeatures {
		parts[i] = strings.TrimSuffix(f.nginx, ";")
	}
	return "the built-in site gives nginx the equivalents of what edge does by default: " + strings.Join(parts, "; ") + "."
}

// beyondConfig lists what edge does by default that t does not ask nginx
// for.
func beyondConfig(t *conf.Tree) []string {
	var out []string
	for _, f := range alwaysOnFeatures {
		if !f.given(t) {
			out = append(out, f.edge+" (nginx: "+f.nginx+")")
		}
	}
	return out
}

// isOn matches a directive written with an argument other than "off".
func isOn(name string) func(*conf.Directive) bool {
	return func(d *conf.Directive) bool {
		return d.Name == name && len(d.Args) > 0 && d.Args[0] != "off"
	}
}

// anyDirective reports whether match holds for a directive anywhere in t.
func anyDirective(t *conf.Tree, match func(*conf.Directive) bool) bool {
	var walk func(ds []*conf.Directive) bool
	walk = func(ds []*conf.Directive) bool {
		for _, d := range ds {
			if match(d) || walk(d.Block) {
				return true
			}
		}
		return false
	}
	return walk(t.Main)
}
