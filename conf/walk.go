package conf

// EachLocation calls fn for every location of the plan's servers: each
// server's own level, the nested prefix and regex locations, the blocks
// of `if` in their rewrite programs, and the named locations. It stops at
// the first error fn returns. Code that prepares something per location
// at load time (log files, FastCGI backends, checks) walks the tree here,
// so that a new kind of nesting is added in one place.
func (p *Plan) EachLocation(fn func(*Location) error) error {
	if p.HTTP == nil {
		return nil
	}
	for _, srv := range p.HTTP.Servers {
		if err := eachLocation(srv.Loc, srv.Rewrite, fn); err != nil {
			return err
		}
		for _, n := range srv.Named {
			if err := eachLocation(n, nil, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// eachLocation visits l, the `if` blocks of its program (and of extra, a
// server's rewrite program, which sits beside its location), and its
// children.
func eachLocation(l *Location, extra []Op, fn func(*Location) error) error {
	if err := fn(l); err != nil {
		return err
	}
	for _, prog := range [][]Op{extra, l.Rewrite} {
		for _, op := range prog {
			if err := eachIf(op, fn); err != nil {
				return err
			}
		}
	}
	for _, c := range l.Prefixes {
		if err := eachLocation(c, nil, fn); err != nil {
			return err
		}
	}
	for _, c := range l.Regexes {
		if err := eachLocation(c, nil, fn); err != nil {
			return err
		}
	}
	return nil
}

// eachIf visits the location of an `if` block and of the blocks inside it.
func eachIf(op Op, fn func(*Location) error) error {
	if op.Kind != OpIf {
		return nil
	}
	return eachLocation(op.Loc, op.Body, fn)
}
