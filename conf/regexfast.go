// This file recognizes the regexps nginx configurations use most, file
// types at the end of a URI (`\.php$`, `\.(jpg|jpeg|png|css|js)$`,
// `~* \.(?:woff2?|ttf)$`), and turns them into a set of extensions, so a
// request matches them with one map lookup instead of running a regexp.
// Case-insensitive sets fold ASCII only, as PCRE does outside UTF mode.
package conf

import "strings"

// ExtSet is a regexp of the form `\.(a|b|c)$` seen as a set of extensions.
type ExtSet struct {
	exts     map[string]bool // lowercased when Caseless
	Caseless bool
	maxLen   int
}

// parseExtSet returns the set for src, or nil when src is anything else.
func parseExtSet(src string, caseless bool) *ExtSet {
	if strings.HasPrefix(src, "(?i)") {
		src, caseless = src[4:], true
	}
	if !strings.HasPrefix(src, `\.`) || !strings.HasSuffix(src, "$") {
		return nil
	}
	body := src[2 : len(src)-1]
	switch {
	case strings.HasPrefix(body, "(?:") && strings.HasSuffix(body, ")"):
		body = body[3 : len(body)-1]
	case strings.HasPrefix(body, "(") && strings.HasSuffix(body, ")"):
		body = body[1 : len(body)-1]
	case strings.Contains(body, "|"):
		// `\.php|html$` is `\.php` anywhere or `html` at the end: the
		// alternation spans the whole pattern, not a set of extensions.
		return nil
	}
	set := &ExtSet{exts: map[string]bool{}, Caseless: caseless}
	for _, alt := range strings.Split(body, "|") {
		words, ok := expandOptional(alt)
		if !ok {
			return nil
		}
		for _, w := range words {
			if caseless {
				w = strings.ToLower(w)
			}
			set.exts[w] = true
			set.maxLen = max(set.maxLen, len(w))
		}
	}
	return set
}

// expandOptional expands "woff2?" to "woff" and "woff2"; an alternative
// may hold letters, digits, "_" and "-", each optionally followed by "?".
func expandOptional(alt string) ([]string, bool) {
	if alt == "" {
		return nil, false
	}
	out := []string{""}
	for i := 0; i < len(alt); i++ {
		c := alt[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return nil, false
		}
		optional := i+1 < len(alt) && alt[i+1] == '?'
		n := len(out)
		for j := 0; j < n; j++ {
			if optional {
				out = append(out, out[j]+string(c))
			} else {
				out[j] += string(c)
			}
		}
		if optional {
			i++
		}
		if len(out) > 64 {
			return nil, false
		}
	}
	return out, true
}

// Match reports whether s ends with "." and one of the extensions (or
// does before a final newline, where PCRE2's "$" also matches), where
// that dot is and where the extension ends.
func (e *ExtSet) Match(s string) (dot, end int, ok bool) {
	end = len(s)
	if end > 0 && s[end-1] == '\n' {
		end--
	}
	dot = strings.LastIndexByte(s[:end], '.')
	if dot < 0 {
		return 0, 0, false
	}
	ext := s[dot+1 : end]
	if len(ext) > e.maxLen || len(ext) == 0 {
		return 0, 0, false
	}
	if !e.Caseless {
		return dot, end, e.exts[ext]
	}
	var buf [32]byte
	b := buf[:0]
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return dot, end, e.exts[string(b)]
}
