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
	var w walker
	syntax.Walk(f, w.visit)
	return w.out, nil
}

// walker collects the statements of a parsed string, each before those
// nested in it, as syntax.Walk meets them.
type walker struct {
	out     []shellstmt.Stmt
	flagged bool
}

// unresolved records why the string cannot be resolved; the first reason
// is the one reported, and one statement carries it.
func (w *walker) unresolved(why string) {
	if !w.flagged {
		w.flagged = true
		w.out = append(w.out, shellstmt.Stmt{Unresolved: why})
	}
}

// arith notes the assignment an arithmetic operator makes to the variable
// x names ((( PATH = 1 )), let BASH_ENV=0, x++), with a value known only
// when the shell runs.
func (w *walker) arith(x syntax.ArithmExpr) {
	if name, ok := arithName(x); ok {
		w.out = append(w.out, shellstmt.Stmt{Assigns: []shellstmt.Assign{{Name: name, Value: "$?"}}})
	} else {
		w.unresolved("an arithmetic assignment to a variable named by an expansion")
	}
}

// visit is syntax.Walk's function: it notes what n assigns, runs or hides.
func (w *walker) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.ParamExp:
		if n.Param == nil || n.Exp == nil {
			return true
		}
		switch n.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			// ${NAME=value} and ${NAME:=value} assign as they expand:
			// an assignment of its own, with a value known only then.
			w.out = append(w.out, shellstmt.Stmt{Assigns: []shellstmt.Assign{{Name: n.Param.Value, Value: "$?"}}})
		case syntax.OtherParamOps:
			if n.Exp.Word != nil && literal(n.Exp.Word).Text == "P" {
				// ${x@P} expands the value as a prompt: its $(…) run.
				w.unresolved("${" + n.Param.Value + "@P}, which runs the command substitutions in the value")
			}
		}
		return true
	case *syntax.BinaryArithm:
		switch n.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
			syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			w.arith(n.X)
		}
		return true
	case *syntax.UnaryArithm:
		if n.Op == syntax.Inc || n.Op == syntax.Dec {
			w.arith(n.X)
		}
		return true
	case *syntax.SglQuoted:
		if subscriptSubst(n.Value) {
			w.unresolved(subscriptWhy)
		}
		return true
	case *syntax.Lit:
		if subscriptSubst(n.Value) {
			w.unresolved(subscriptWhy)
		}
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
		s.Assigns, s.Unresolved = declare(s.Assigns, c)
	case *syntax.CallExpr:
		s.Assigns = assigns(s.Assigns, c.Assigns)
		if len(c.Args) > 0 {
			s.Words = make([]shellstmt.Word, len(c.Args))
			for i, w := range c.Args {
				s.Words[i] = literal(w)
			}
		}
	}
	w.out = append(w.out, s)
	return true
}

// subscriptWhy is the reason for text subscriptSubst finds.
const subscriptWhy = "text that holds a substitution in an array subscript ('a[$(…)]'), which arithmetic, " +
	"test -v, printf -v, read or unset run when they meet it"

// subscriptSubst reports whether literal text holds what Bash runs when the
// text reaches an array subscript: a "[", then $( or a backtick, then a
// "]". Bash expands a subscript wherever a name is evaluated — (( x )) of
// x='a[$(rm …)]', let, [[ -v ]], test -v, printf -v, read, unset, ${!x} —
// so a quoted literal of that shape is code that runs later.
func subscriptSubst(t string) bool {
	i := strings.IndexByte(t, '[')
	if i < 0 {
		return false
	}
	t = t[i+1:]
	j := strings.Index(t, "$(")
	if k := strings.IndexByte(t, '`'); k >= 0 && (j < 0 || k < j) {
		j = k
	}
	return j >= 0 && strings.IndexByte(t[j:], ']') >= 0
}

// arithName returns the variable an arithmetic assignment sets, when its
// name is literal ("a" of a[i]=1).
func arithName(x syntax.ArithmExpr) (string, bool) {
	w, ok := x.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	name, _, _ := strings.Cut(l.Value, "[")
	return name, name != ""
}

// declare returns the assignments of a declaration (export, declare,
// local, typeset, readonly, nameref) appended to out, and why it cannot be
// resolved, if it cannot: an argument named by an expansion (declare $o p,
// export $x, where o=-n or x=PATH=…), or a nameref (declare -n, nameref)
// whose target is not a literal, which a later assignment to it names.
func declare(out []shellstmt.Assign, c *syntax.DeclClause) ([]shellstmt.Assign, string) {
	out = assigns(out, c.Args)
	ref := c.Variant.Value == "nameref" || c.Variant.Value != "export" && nameref(c.Args)
	why := ""
	for _, a := range c.Args {
		switch {
		case a.Name == nil && a.Value != nil:
			t := literal(a.Value)
			if !known(t) {
				why = c.Variant.Value + " with an argument named by an expansion"
				continue
			}
			// A quoted NAME=VALUE is an assignment too: declare 'PATH=…'.
			if name, v, ok := strings.Cut(t.Text, "="); ok && !strings.HasPrefix(t.Text, "-") && !strings.HasPrefix(t.Text, "+") {
				name = strings.TrimSuffix(name, "+")
				if ref {
					name, v = v, "$?"
				}
				out = append(out, shellstmt.Assign{Name: name, Value: v})
			}
		case ref && a.Name != nil:
			if a.Value == nil {
				why = "a nameref with no target (" + c.Variant.Value + " -n " + a.Name.Value + "), which a later assignment names"
				continue
			}
			// declare -n p=PATH: a later p=… sets PATH.
			t := literal(a.Value)
			if !known(t) {
				why = "a nameref whose target is named by an expansion"
				continue
			}
			out = append(out, shellstmt.Assign{Name: t.Text, Value: "$?"})
		}
	}
	return out, why
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
