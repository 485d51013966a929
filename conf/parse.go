// This file turns configuration files into a syntax tree: directives with
// their words, the file and line they came from, and nested blocks.
// "include" is expanded here, in place, with globs resolved against the
// prefix directory (nginx resolves relative include paths against the
// directory of the main configuration file, its "conf prefix").
//
// The tree knows nothing of HTTP; the directive tables and the compile
// step give it meaning.
package conf

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Directive is one statement of the configuration.
type Directive struct {
	Name  string
	Args  []string
	File  string // the file it was read from
	Line  int    // the line its ";" or "{" was on, as nginx reports it
	Block []*Directive
	// HasBlock is true when the directive was followed by "{ ... }" (Block
	// may still be empty).
	HasBlock bool
	// EndLine is the line of the block's "}", where nginx reports what a
	// block handler finds wrong once the whole block is read.
	EndLine int
}

// SourceFile is one file read while parsing, kept for "edge -T".
type SourceFile struct {
	Path string
	Data []byte
}

// Tree is a parsed configuration.
type Tree struct {
	Main  []*Directive
	Files []SourceFile
}

// ReadFileFunc reads a configuration file; tests and the embedded default
// replace it. The zero value of ParseOptions uses os.ReadFile.
type ReadFileFunc func(path string) ([]byte, error)

// GlobFunc expands an include pattern; the zero value uses filepath.Glob.
type GlobFunc func(pattern string) ([]string, error)

// ParseOptions controls Parse. Zero values are documented per field.
type ParseOptions struct {
	// Prefix is the directory relative include paths are resolved against.
	// Empty means the directory of the main file.
	Prefix string
	// ReadFile reads files; nil means os.ReadFile.
	ReadFile ReadFileFunc
	// Glob expands include patterns; nil means filepath.Glob.
	Glob GlobFunc
	// Extra holds directives given on the command line with -g; they are
	// parsed as if they were at the end of the main context (ParseFile
	// and ParseBytes alike).
	Extra string
}

type parser struct {
	opts    ParseOptions
	files   []SourceFile
	reading []string // files being read, for the include cycle check
	seen    map[string]bool
}

// maxIncludeDepth bounds nested includes; a cycle is reported before it.
const maxIncludeDepth = 64

// ParseFile reads the main configuration file and every file it includes.
func ParseFile(path string, opts ParseOptions) (*Tree, error) {
	if opts.ReadFile == nil {
		opts.ReadFile = os.ReadFile
	}
	if opts.Glob == nil {
		opts.Glob = filepath.Glob
	}
	if opts.Prefix == "" {
		opts.Prefix = filepath.Dir(path)
	}
	p := &parser{opts: opts, seen: map[string]bool{}}
	main, err := p.parseFile(path)
	if err != nil {
		return nil, err
	}
	return p.withExtra(main)
}

// ParseBytes parses one configuration text; includes are resolved against
// opts.Prefix.
func ParseBytes(name string, src []byte, opts ParseOptions) (*Tree, error) {
	if opts.ReadFile == nil {
		opts.ReadFile = os.ReadFile
	}
	if opts.Glob == nil {
		opts.Glob = filepath.Glob
	}
	p := &parser{opts: opts, seen: map[string]bool{}}
	p.files = append(p.files, SourceFile{Path: name, Data: src})
	main, err := p.parseBytes(name, src)
	if err != nil {
		return nil, err
	}
	return p.withExtra(main)
}

// withExtra ends the tree with the -g directives.
func (p *parser) withExtra(main []*Directive) (*Tree, error) {
	if p.opts.Extra != "" {
		extra, err := p.parseBytes("command line", []byte(p.opts.Extra))
		if err != nil {
			return nil, err
		}
		main = append(main, extra...)
	}
	return &Tree{Main: main, Files: p.files}, nil
}

func (p *parser) parseFile(path string) ([]*Directive, error) {
	for _, r := range p.reading {
		if r == path {
			return nil, &Error{Level: LevelEmerg, Msg: "include cycle: \"" + path + "\" includes itself (via " + strings.Join(p.reading, " -> ") + ")"}
		}
	}
	if len(p.reading) >= maxIncludeDepth {
		return nil, &Error{Level: LevelEmerg, Msg: "includes nested too deeply at \"" + path + "\""}
	}
	src, err := p.opts.ReadFile(path)
	if err != nil {
		return nil, &Error{Level: LevelEmerg, Msg: openError(path, err)}
	}
	if !p.seen[path] {
		p.seen[path] = true
		p.files = append(p.files, SourceFile{Path: path, Data: src})
	}
	p.reading = append(p.reading, path)
	defer func() { p.reading = p.reading[:len(p.reading)-1] }()
	return p.parseBytes(path, src)
}

// openError words a failed open the way nginx does.
func openError(path string, err error) string {
	reason := err.Error()
	if pe, ok := err.(*os.PathError); ok {
		reason = pe.Err.Error()
		if len(reason) > 0 {
			reason = strings.ToUpper(reason[:1]) + reason[1:]
		}
	}
	return "open() \"" + path + "\" failed (" + errnoText(err) + reason + ")"
}

// errnoText gives nginx's "2: " errno prefix for common errors.
func errnoText(err error) string {
	switch {
	case os.IsNotExist(err):
		return "2: "
	case os.IsPermission(err):
		return "13: "
	}
	return ""
}

func (p *parser) parseBytes(name string, src []byte) ([]*Directive, error) {
	lx := newLexer(name, src)
	list, end, err := p.parseBlock(lx, 0)
	if err != nil {
		return nil, err
	}
	if end != tokEOF {
		return nil, lx.errorf("unexpected \"}\"")
	}
	return list, nil
}

// parseBlock reads directives until "}" or the end of the file.
func (p *parser) parseBlock(lx *lexer, depth int) ([]*Directive, tokenKind, error) {
	var list []*Directive
	for {
		words, kind, line, err := lx.next()
		if err != nil {
			return nil, 0, err
		}
		switch kind {
		case tokEOF:
			if depth > 0 {
				return nil, 0, lx.errorf("unexpected end of file, expecting \"}\"")
			}
			return list, tokEOF, nil
		case tokBlockEnd:
			if depth == 0 {
				return nil, 0, lx.errorf("unexpected \"}\"")
			}
			return list, tokBlockEnd, nil
		}
		d := &Directive{Name: words[0].text, File: lx.file, Line: line}
		for _, w := range words[1:] {
			d.Args = append(d.Args, w.text)
		}
		if kind == tokBlockStart {
			d.HasBlock = true
			d.Block, _, err = p.parseBlock(lx, depth+1)
			if err != nil {
				return nil, 0, err
			}
			d.EndLine = lx.line
			if d.Block == nil {
				d.Block = []*Directive{}
			}
			list = append(list, d)
			continue
		}
		if d.Name == "include" {
			inc, err := p.include(d)
			if err != nil {
				return nil, 0, err
			}
			list = append(list, inc...)
			continue
		}
		list = append(list, d)
	}
}

// include expands one "include" directive.
func (p *parser) include(d *Directive) ([]*Directive, error) {
	if len(d.Args) != 1 {
		return nil, emergf(d, "invalid number of arguments in \"include\" directive")
	}
	pattern := d.Args[0]
	if !filepath.IsAbs(pattern) {
		pattern = filepath.Join(p.opts.Prefix, pattern)
	}
	var paths []string
	if strings.ContainsAny(pattern, "*?[") {
		m, err := p.opts.Glob(pattern)
		if err != nil {
			return nil, emergf(d, "glob() \"%s\" failed (%s)", pattern, err)
		}
		sort.Strings(m)
		// nginx skips hidden files in globs (ngx_read_glob uses GLOB_NOSORT
		// plus its own filter for names starting with ".").
		for _, f := range m {
			if !strings.HasPrefix(filepath.Base(f), ".") {
				paths = append(paths, f)
			}
		}
	} else {
		paths = []string{pattern}
	}
	var out []*Directive
	for _, path := range paths {
		list, err := p.parseFile(path)
		if err != nil {
			if e, ok := err.(*Error); ok && e.File == "" {
				e.File, e.Line = d.File, d.Line
			}
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}
