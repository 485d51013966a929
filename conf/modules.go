// This file holds load_module. edge is one binary: it loads no module at
// run time, but it has the third-party modules hosting panels build into
// nginx compiled in (headers-more, brotli, cache purge). A load_module
// line naming one of them, as Debian's /etc/nginx/modules-enabled/*.conf
// files and the configs copied from such servers have, is accepted with a
// [notice] that it is not needed; any other module is refused by name,
// since the directives it would bring would then fail one by one with a
// less useful message (issue 15).
package conf

import (
	"path/filepath"
	"strings"
)

// builtinModules are the dynamic modules of nginx whose directives edge
// has built in, by the name of their file without ".so" (nginx's module
// name, as "module ... is already loaded" says it).
var builtinModules = map[string]string{
	"ngx_http_headers_more_filter_module": "headers-more",
	"ngx_http_brotli_filter_module":       "ngx_brotli",
	"ngx_http_brotli_static_module":       "ngx_brotli",
	"ngx_http_cache_purge_module":         "ngx_cache_purge",
}

func init() {
	register(
		&spec{name: "load_module", ctx: ctxMain, args: take1, multi: true, set: setLoadModule},
	)
}

// setLoadModule reads "load_module path", where path is nginx's
// "modules/ngx_x.so" under the prefix or an absolute one
// (/usr/lib/nginx/modules/..., /usr/share/nginx/modules/...): only the
// file's name matters to edge, which opens nothing.
func setLoadModule(c *compiler, f *frame, d *Directive) error {
	// nginx counts its modules when it reads the first block that needs
	// them (events, http); a module loaded after that is refused
	// (ngx_load_module: cycle->modules_used).
	if c.events || c.plan.HTTP != nil {
		return emergf(d, "\"load_module\" directive is specified too late")
	}
	name := strings.TrimSuffix(filepath.Base(d.Args[0]), ".so")
	module, ok := builtinModules[name]
	if !ok {
		return emergf(d, "edge cannot load the module \"%s\": edge has no dynamic modules, and the modules it has built in are headers-more, ngx_brotli and ngx_cache_purge; remove the line and the module's directives", name)
	}
	if c.modules == nil {
		c.modules = map[string]bool{}
	}
	if c.modules[name] {
		return emergf(d, "module \"%s\" is already loaded", name)
	}
	c.modules[name] = true
	c.noticef(d, "the \"load_module\" directive is not needed: %s (%s) is part of edge", module, name)
	return nil
}
