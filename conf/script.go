// This file compiles strings with $variables into scripts: a list of
// literal parts and variable references, resolved once at load time so a
// request only concatenates. The syntax is nginx's
// (ngx_http_script_compile): "$name", "${name}" where the name would run
// into following letters, and "$1".."$9" for regex captures.
package conf

import (
	"strings"
)

// Script is a compiled string with variables.
type Script struct {
	Raw   string
	Parts []Part
	// Static is true when the script has no variables; Raw is then its value.
	Static bool
}

// Part is a literal or a variable reference.
type Part struct {
	Lit string
	Var *VarRef // nil for a literal part
}

// VarKind says where a variable's value comes from.
type VarKind int

const (
	VarBuiltin  VarKind = iota // a fixed variable such as $uri (see VarID)
	VarHeader                  // $http_NAME: a request header
	VarSent                    // $sent_http_NAME: a response header
	VarUpstream                // $upstream_http_NAME: a backend response header
	VarCookie                  // $cookie_NAME
	VarArg                     // $arg_NAME
	VarCapture                 // $1..$9
	VarSlot                    // set/map/named capture: a per-request slot
)

// VarRef is one resolved variable.
type VarRef struct {
	Name string // as written, lowercased
	Kind VarKind
	ID   VarID // for VarBuiltin
	// Arg is the part after the prefix for $http_/$sent_http_/$cookie_/$arg_.
	// For headers it is the header name with "_" turned into "-".
	Arg string
	// N is the capture number (VarCapture) or the slot (VarSlot).
	N int
	// Map is the map that computes a VarSlot variable, nil for set/captures.
	Map *Map
}

// Captures reports whether the script uses $1..$9 (or named captures).
func (s *Script) Captures() bool {
	if s == nil {
		return false
	}
	for _, p := range s.Parts {
		if p.Var != nil && p.Var.Kind == VarCapture {
			return true
		}
	}
	return false
}

// HasVar reports whether the script uses the builtin variable id.
func (s *Script) HasVar(id VarID) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Parts {
		if p.Var != nil && p.Var.Kind == VarBuiltin && p.Var.ID == id {
			return true
		}
	}
	return false
}

// StaticScript makes a script without variables.
func StaticScript(s string) *Script {
	return &Script{Raw: s, Static: true, Parts: []Part{{Lit: s}}}
}

// compileScript parses s; variable names are resolved later by the
// compiler (so "set" may follow its first use, as nginx allows).
func (c *compiler) compileScript(d *Directive, s string) (*Script, error) {
	sc := &Script{Raw: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			sc.Parts = append(sc.Parts, Part{Lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		ch := s[i]
		if ch != '$' {
			lit.WriteByte(ch)
			i++
			continue
		}
		i++
		if i < len(s) && s[i] >= '1' && s[i] <= '9' {
			flush()
			sc.Parts = append(sc.Parts, Part{Var: &VarRef{Name: s[i : i+1], Kind: VarCapture, N: int(s[i] - '0')}})
			i++
			continue
		}
		bracket := false
		if i < len(s) && s[i] == '{' {
			bracket = true
			i++
		}
		start := i
		for i < len(s) && isVarChar(s[i]) {
			i++
		}
		name := s[start:i]
		if bracket {
			if i >= len(s) || s[i] != '}' {
				return nil, emergf(d, "the closing bracket in \"%s\" variable is missing", name)
			}
			i++
		}
		if name == "" {
			return nil, emergf(d, "invalid variable name")
		}
		flush()
		ref := &VarRef{Name: strings.ToLower(name)}
		c.pendingVars = append(c.pendingVars, pendingVar{ref: ref, d: d})
		sc.Parts = append(sc.Parts, Part{Var: ref})
	}
	flush()
	sc.Static = true
	for _, p := range sc.Parts {
		if p.Var != nil {
			sc.Static = false
		}
	}
	if len(sc.Parts) == 0 {
		sc.Parts = []Part{{Lit: ""}}
	}
	return sc, nil
}

func isVarChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pendingVar is a variable reference waiting for the end of the
// configuration to be resolved.
type pendingVar struct {
	ref *VarRef
	d   *Directive
}

// resolveVars binds every variable reference, once all set/map/named
// captures are known; unknown names are errors, like nginx's
// `unknown "foo" variable`.
func (c *compiler) resolveVars() error {
	for _, pv := range c.pendingVars {
		if err := c.resolveVar(pv.ref); err != nil {
			return emergf(pv.d, "%s", err.Error())
		}
	}
	return nil
}

type unknownVarError string

func (e unknownVarError) Error() string { return "unknown \"" + string(e) + "\" variable" }

func (c *compiler) resolveVar(ref *VarRef) error {
	name := ref.Name
	if slot, ok := c.slots[name]; ok {
		ref.Kind, ref.N = VarSlot, slot
		ref.Map = c.slotMaps[slot]
		return nil
	}
	if id, ok := builtinVars[name]; ok {
		ref.Kind, ref.ID = VarBuiltin, id
		return nil
	}
	for _, p := range varPrefixes {
		if strings.HasPrefix(name, p.prefix) && len(name) > len(p.prefix) {
			ref.Kind = p.kind
			ref.Arg = name[len(p.prefix):]
			if p.header {
				ref.Arg = strings.ReplaceAll(ref.Arg, "_", "-")
			}
			return nil
		}
	}
	return unknownVarError(name)
}

// varPrefixes are the variable families with a name after the prefix.
var varPrefixes = []struct {
	prefix string
	kind   VarKind
	header bool
}{
	{"http_", VarHeader, true},
	{"sent_http_", VarSent, true},
	{"upstream_http_", VarUpstream, true},
	{"cookie_", VarCookie, false},
	{"arg_", VarArg, false},
}

// declareSlot makes a per-request variable (set, map, named capture) known.
func (c *compiler) declareSlot(name string, m *Map) int {
	name = strings.ToLower(name)
	if slot, ok := c.slots[name]; ok {
		if m != nil {
			c.slotMaps[slot] = m
		}
		return slot
	}
	slot := len(c.slotNames)
	c.slots[name] = slot
	c.slotNames = append(c.slotNames, name)
	c.slotMaps = append(c.slotMaps, m)
	return slot
}
