package shellsyntax

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/paigasus/helikon/internal/shellstmt"
)

func init() { shellstmt.Parser = parse }

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// parse reads src as Bash into its statements, each before those nested in
// it, as syntax.Walk meets them.
func parse(src string) ([]shellstmt.Stmt, error) {
	p := parserPool.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(src), "")
	parserPool.Put(p)
	if err != nil {
		return nil, err
	}
	var out []shellstmt.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && pe.Exp != nil &&
			(pe.Exp.Op == syntax.AssignUnset || pe.Exp.Op == syntax.AssignUnsetOrNull) {
			// ${NAME=value} and ${NAME:=value} assign as they expand:
			// an assignment of its own, with a value known only then.
			out = append(out, shellstmt.Stmt{Assigns: []shellstmt.Assign{{Name: pe.Param.Value, Value: "$?"}}})
			return true
		}
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		var s shellstmt.Stmt
		s.Writes, s.DynWrites = redirectWrites(st.Redirs)
		switch c := st.Cmd.(type) {
		case *syntax.DeclClause:
			s.Assigns = assigns(s.Assigns, c.Args)
			if c.Variant.Value != "export" && nameref(c.Args) {
				// declare -n p=PATH: a later p=… sets PATH.
				for _, a := range c.Args {
					if a.Name != nil && a.Value != nil {
						s.Assigns = append(s.Assigns, shellstmt.Assign{Name: literal(a.Value).Text, Value: "$?"})
					}
				}
			}
		case *syntax.CallExpr:
			s.Assigns = assigns(s.Assigns, c.Assigns)
			if len(c.Args) > 0 {
				s.Words = make([]shellstmt.Word, len(c.Args))
				for i, w := range c.Args {
					s.Words[i] = literal(w)
				}
			}
		}
		out = append(out, s)
		return true
	})
	return out, nil
}

// assigns appends the named assignments of as.
// nameref reports a -n among a declaration's flags.
func nameref(args []*syntax.Assign) bool {
	for _, a := range args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if t := literal(a.Value); t.Lit && strings.HasPrefix(t.Text, "-") && strings.ContainsRune(t.Text, 'n') {
				return true
			}
		}
	}
	return false
}

func assigns(out []shellstmt.Assign, as []*syntax.Assign) []shellstmt.Assign {
	for _, a := range as {
		if a.Name != nil {
			out = append(out, shellstmt.Assign{Name: a.Name.Value, Value: assignValue(a)})
		}
	}
	return out
}

// assignValue is the loose text of an assignment's value.
func assignValue(a *syntax.Assign) string {
	if a.Value == nil {
		return ""
	}
	return literal(a.Value).Text
}

// redirectWrites returns the files the redirections open for writing, and
// which of them are not known before the shell runs.
func redirectWrites(rs []*syntax.Redirect) ([]string, uint64) {
	var out []string
	var dyn uint64
	for _, r := range rs {
		if r.Word == nil {
			continue
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		case syntax.DplOut:
			// >&2 and >&- duplicate or close descriptors; >&file writes.
			if t := literal(r.Word); t.Lit && (t.Text == "-" || t.Text != "" && strings.Trim(t.Text, "0123456789") == "") {
				continue
			}
		default:
			continue
		}
		w := literal(r.Word)
		if !known(w) && len(out) < 64 {
			dyn |= 1 << len(out)
		}
		out = append(out, w.Text)
	}
	return out, dyn
}

// known reports whether the shell passes the word as its text says, up to
// glob expansion.
func known(w shellstmt.Word) bool { return (w.Lit || w.Home) && !w.Brace }
