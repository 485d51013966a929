// This file holds the rewrite module: rewrite, return, set, break and if,
// compiled into a small program of operations per server and per location
// (nginx compiles the same directives into its script code array).
package conf

import (
	"strconv"
	"strings"
)

// OpKind is one rewrite-module operation.
type OpKind int

const (
	OpRewrite OpKind = iota
	OpReturn
	OpSet
	OpBreak
	OpIf
)

// RewriteFlag is the last argument of rewrite.
type RewriteFlag int

const (
	FlagNone      RewriteFlag = iota // go on with the next directive
	FlagLast                         // stop and search a location for the new URI
	FlagBreak                        // stop and stay in this location
	FlagRedirect                     // 302
	FlagPermanent                    // 301
)

// Op is one operation of a rewrite program.
type Op struct {
	Kind OpKind

	// rewrite
	Regex    *Regex
	Replace  *Script
	Flag     RewriteFlag
	Redirect bool // the result is sent as a redirect (flag or absolute URL)
	DropArgs bool // the replacement ended with "?": do not append the old args

	// return
	Code int
	Text *Script // the body text, or the URL for redirect codes; may be nil

	// set
	Var   *VarRef
	Value *Script

	// if
	Cond *Cond
	Body []Op
	Loc  *Location // the if block's settings, in effect when Cond is true

	File string
	Line int
}

// CondKind is the kind of an if condition.
type CondKind int

const (
	CondVar      CondKind = iota // if ($var): true unless "" or "0"
	CondEq                       // =
	CondNe                       // !=
	CondMatch                    // ~ and ~* (Regex carries the case rule)
	CondNotMatch                 // !~ and !~*
	CondFile                     // -f
	CondDir                      // -d
	CondExists                   // -e
	CondExec                     // -x
)

// Cond is a compiled if condition.
type Cond struct {
	Kind   CondKind
	Negate bool    // for the file tests: "!-f" and friends
	Left   *Script // the variable (or, for file tests, the path)
	Right  *Script // for = and !=
	Regex  *Regex  // for ~ forms
}

func init() {
	register(
		// The rewrite program of a level is its own (nginx runs the
		// server's and then the location's).
		&spec{name: "rewrite", ctx: ctxRw, args: take23, multi: true, local: true, set: setRewrite},
		&spec{name: "return", ctx: ctxRw, args: take12, multi: true, local: true, set: setReturn},
		&spec{name: "set", ctx: ctxRw, args: take2, multi: true, local: true, set: setSet},
		&spec{name: "break", ctx: ctxRw, args: take0, multi: true, local: true, set: func(c *compiler, f *frame, d *Directive) error {
			*f.prog = append(*f.prog, Op{Kind: OpBreak, File: d.File, Line: d.Line})
			return nil
		}},
		&spec{name: "if", ctx: ctxServer | ctxLocation, args: take1More | isBlock, multi: true, local: true, set: setIf},
		flagSlot("rewrite_log", ctxHSL|ctxServerIf|ctxLocationIf, atLoc, func(l *LocConf) *bool { return &l.RewriteLog }, false),
		flagSlot("uninitialized_variable_warn", ctxHSL|ctxServerIf|ctxLocationIf, atLoc, func(l *LocConf) *bool { return &l.UninitializedVarWarn }, true),
	)
}

func setRewrite(c *compiler, f *frame, d *Directive) error {
	re, err := c.compileRegex(d, d.Args[0], false)
	if err != nil {
		return err
	}
	op := Op{Kind: OpRewrite, Regex: re, File: d.File, Line: d.Line}
	repl := d.Args[1]
	if strings.HasPrefix(repl, "http://") || strings.HasPrefix(repl, "https://") || strings.HasPrefix(repl, "$scheme") {
		op.Redirect = true
		op.Flag = FlagRedirect
	}
	if len(d.Args) == 3 {
		switch d.Args[2] {
		case "last":
			op.Flag = FlagLast
		case "break":
			op.Flag = FlagBreak
		case "redirect":
			op.Flag, op.Redirect = FlagRedirect, true
		case "permanent":
			op.Flag, op.Redirect = FlagPermanent, true
		default:
			return emergf(d, "invalid parameter \"%s\"", d.Args[2])
		}
	}
	if strings.HasSuffix(repl, "?") {
		op.DropArgs = true
		repl = repl[:len(repl)-1]
	}
	op.Replace, err = c.compileScript(d, repl)
	if err != nil {
		return err
	}
	*f.prog = append(*f.prog, op)
	return nil
}

func setReturn(c *compiler, f *frame, d *Directive) error {
	op := Op{Kind: OpReturn, File: d.File, Line: d.Line}
	a := d.Args[0]
	code, err := strconv.Atoi(a)
	switch {
	case err == nil:
		if code < 0 || code > 999 {
			return emergf(d, "invalid return code \"%s\"", a)
		}
		op.Code = code
		if len(d.Args) == 2 {
			if op.Text, err = c.compileScript(d, d.Args[1]); err != nil {
				return err
			}
		}
	case len(d.Args) == 1 && (strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") || strings.HasPrefix(a, "$scheme")):
		op.Code = 302
		if op.Text, err = c.compileScript(d, a); err != nil {
			return err
		}
	default:
		return emergf(d, "invalid return code \"%s\"", a)
	}
	*f.prog = append(*f.prog, op)
	return nil
}

func setSet(c *compiler, f *frame, d *Directive) error {
	name := d.Args[0]
	if !strings.HasPrefix(name, "$") || len(name) < 2 {
		return emergf(d, "invalid variable name \"%s\"", name)
	}
	name = strings.ToLower(name[1:])
	ref := &VarRef{Name: name}
	if _, builtin := builtinVars[name]; builtin {
		if !changeableBuiltins[name] {
			return emergf(d, "the duplicate \"%s\" variable", name)
		}
		ref.Kind, ref.ID = VarBuiltin, builtinVars[name]
	} else {
		for _, p := range varPrefixes {
			if strings.HasPrefix(name, p.prefix) {
				return emergf(d, "the duplicate \"%s\" variable", name)
			}
		}
		ref.Kind, ref.N = VarSlot, c.declareSlot(name, nil)
	}
	val, err := c.compileScript(d, d.Args[1])
	if err != nil {
		return err
	}
	*f.prog = append(*f.prog, Op{Kind: OpSet, Var: ref, Value: val, File: d.File, Line: d.Line})
	return nil
}

// setIf reads an if block (ngx_http_rewrite_if and its condition parser).
func setIf(c *compiler, f *frame, d *Directive) error {
	cond, err := c.parseCond(d)
	if err != nil {
		return err
	}
	loc := &Location{Kind: LocIf, Parent: f.loc, Name: "if", File: d.File, Line: d.Line}
	c.ifs[f.loc] = append(c.ifs[f.loc], loc)
	op := Op{Kind: OpIf, Cond: cond, Loc: loc, File: d.File, Line: d.Line}
	inner := ctxLocationIf
	if f.ctx == ctxServer {
		inner = ctxServerIf
	}
	if err := c.block(&frame{ctx: inner, srv: f.srv, loc: loc, prog: &op.Body}, d.Block); err != nil {
		return err
	}
	*f.prog = append(*f.prog, op)
	return nil
}

func (c *compiler) parseCond(d *Directive) (*Cond, error) {
	args := append([]string(nil), d.Args...)
	first, last := 0, len(args)-1
	if !strings.HasPrefix(args[first], "(") {
		return nil, emergf(d, "invalid condition \"%s\"", args[first])
	}
	if args[first] == "(" {
		first++
	} else {
		args[first] = args[first][1:]
	}
	if first > last || !strings.HasSuffix(args[last], ")") {
		return nil, emergf(d, "invalid condition \"%s\"", args[last])
	}
	if args[last] == ")" {
		last--
	} else {
		args[last] = args[last][:len(args[last])-1]
	}
	if first > last {
		return nil, emergf(d, "invalid condition \"%s\"", d.Args[0])
	}
	cur := args[first]
	if len(cur) > 1 && cur[0] == '$' {
		return c.parseVarCond(d, args[first:last+1])
	}
	if (len(cur) == 2 && cur[0] == '-') || (len(cur) == 3 && cur[0] == '!' && cur[1] == '-') {
		if first+1 != last {
			return nil, emergf(d, "invalid condition \"%s\"", cur)
		}
		path, err := c.compileScript(d, args[last])
		if err != nil {
			return nil, err
		}
		cond := &Cond{Left: path, Negate: cur[0] == '!'}
		switch cur[len(cur)-1] {
		case 'f':
			cond.Kind = CondFile
		case 'd':
			cond.Kind = CondDir
		case 'e':
			cond.Kind = CondExists
		case 'x':
			cond.Kind = CondExec
		default:
			return nil, emergf(d, "invalid condition \"%s\"", cur)
		}
		return cond, nil
	}
	return nil, emergf(d, "invalid condition \"%s\"", cur)
}

// parseVarCond reads a condition on a variable: "$v", "$v = s", "$v != s"
// or "$v ~ re" and its siblings; args are the condition's words.
func (c *compiler) parseVarCond(d *Directive, args []string) (*Cond, error) {
	if len(args) != 1 && len(args) != 3 {
		return nil, emergf(d, "invalid condition \"%s\"", args[0])
	}
	left, err := c.compileScript(d, args[0])
	if err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return &Cond{Kind: CondVar, Left: left}, nil
	}
	op, right := args[1], args[2]
	switch op {
	case "=", "!=":
		r, err := c.compileScript(d, right)
		if err != nil {
			return nil, err
		}
		k := CondEq
		if op == "!=" {
			k = CondNe
		}
		return &Cond{Kind: k, Left: left, Right: r}, nil
	case "~", "~*", "!~", "!~*":
		re, err := c.compileRegex(d, right, strings.HasSuffix(op, "*"))
		if err != nil {
			return nil, err
		}
		k := CondMatch
		if op[0] == '!' {
			k = CondNotMatch
		}
		return &Cond{Kind: k, Left: left, Regex: re}, nil
	}
	return nil, emergf(d, "unexpected \"%s\" in condition", op)
}
