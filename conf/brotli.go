// This file holds the directives of ngx_brotli, the third-party module
// hosting panels build into nginx (issue 15): its filter module (brotli,
// brotli_types, brotli_min_length, brotli_comp_level, brotli_window,
// brotli_buffers) and its static module (brotli_static). Defaults,
// contexts and messages are those of google/ngx_brotli's
// ngx_http_brotli_filter_module.c and ngx_http_brotli_static_module.c.
package conf

import "strconv"

func init() {
	register(
		flagSlot("brotli", ctxHSLif, atLoc, func(l *LocConf) *bool { return &l.Brotli.On }, false),
		(&spec{name: "brotli_types", ctx: ctxHSL, args: take1More, set: func(c *compiler, f *frame, d *Directive) error {
			setEncodingTypes(&f.loc.Brotli.Encoding, d)
			return nil
		}}).setSlot(fields(
			field(func(l *LocConf) *map[string]bool { return &l.Brotli.Types }, map[string]bool{"text/html": true}),
			field(func(l *LocConf) *bool { return &l.Brotli.AnyType }, false))),
		sizeSlot("brotli_min_length", ctxHSL, atLoc, func(l *LocConf) *int64 { return &l.Brotli.MinLength }, 20),
		value("brotli_comp_level", ctxHSL, take1, atLoc, func(l *LocConf) *int { return &l.Brotli.CompLevel }, 6, parseBrotliLevel),
		value("brotli_window", ctxHSL, take1, atLoc, func(l *LocConf) *int { return &l.Brotli.Window }, 19, parseBrotliWindow),
		enumSlot("brotli_static", ctxHSL, atLoc, func(l *LocConf) *string { return &l.Brotli.Static }, "off", "off", "on", "always"),
		// brotli_buffers is deprecated and unused in ngx_brotli itself;
		// its arguments are checked as ngx_conf_set_bufs_slot does.
		&spec{name: "brotli_buffers", ctx: ctxHSL, args: take2, local: true, set: checkBufs},
	)
}

// parseBrotliLevel reads brotli_comp_level (ngx_conf_set_num_slot with
// the bounds BROTLI_MIN_QUALITY..BROTLI_MAX_QUALITY).
func parseBrotliLevel(c *compiler, d *Directive) (int, error) {
	n, err := strconv.Atoi(d.Args[0])
	if err != nil || n < 0 {
		return 0, emergf(d, "\"%s\" directive invalid number", d.Name)
	}
	if n > 11 {
		return 0, emergf(d, "\"%s\" directive must be between 0 and 11", d.Name)
	}
	return n, nil
}

// parseBrotliWindow reads brotli_window, a size that must be a power of
// two from 1k to 16m, and keeps its log2 (ngx_http_brotli_parse_wbits).
func parseBrotliWindow(c *compiler, d *Directive) (int, error) {
	n, err := parseSize(d, d.Args[0])
	if err != nil {
		return 0, err
	}
	for bits := 10; bits <= 24; bits++ {
		if n == 1<<bits {
			return bits, nil
		}
	}
	return 0, emergf(d, "\"%s\" directive must be 1k, 2k, 4k, 8k, 16k, 32k, 64k, 128k, 256k, 512k, 1m, 2m, 4m, 8m or 16m", d.Name)
}

// checkBufs checks "number size" as ngx_conf_set_bufs_slot does: both
// positive.
func checkBufs(c *compiler, f *frame, d *Directive) error {
	if n, err := strconv.Atoi(d.Args[0]); err != nil || n <= 0 {
		return emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[0], d.Name)
	}
	if n, ok := ParseSize(d.Args[1]); !ok || n <= 0 {
		return emergf(d, "invalid value \"%s\" in \"%s\" directive", d.Args[1], d.Name)
	}
	return nil
}
