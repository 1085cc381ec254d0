package shellmatch

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/benchpair"
	"mvdan.cc/sh/v3/syntax"
)

// worstShapes are command strings built to make the parser or the matcher
// work hard: deep nesting, long operator chains, many wrappers, many
// substitutions, long words, nested command strings.
var worstShapes = map[string]func(n int) string{
	"nested_parens": func(n int) string { return strings.Repeat("(", n) + "ls" + strings.Repeat(")", n) },
	"nested_subst":  func(n int) string { return strings.Repeat("$(", n) + "ls" + strings.Repeat(")", n) },
	"quoted_closer": func(n int) string { return strings.Repeat(`$( ")" `, n) + "ls" + strings.Repeat(")", n) },
	"nested_if":     func(n int) string { return strings.Repeat("if true; then ", n) + "ls;" + strings.Repeat(" fi;", n) },
	"and_chain":     func(n int) string { return strings.Repeat("ls && ", n) + "ls" },
	"pipe_chain":    func(n int) string { return strings.Repeat("ls | ", n) + "ls" },
	"wrappers":      func(n int) string { return strings.Repeat("nice ", n) + "ls" },
	"substs":        func(n int) string { return "echo " + strings.Repeat("$(ls)", n) },
	"arith":         func(n int) string { return "echo $((" + strings.Repeat("1+", n) + "1))" },
	"long_word":     func(n int) string { return "echo " + strings.Repeat("a", n) },
	"evals":         func(n int) string { return strings.Repeat("eval ", n) + "ls" },
	"bash_c":        func(n int) string { return "bash -c " + quote(strings.Repeat("ls; ", n)) },
	"braces":        func(n int) string { return strings.Repeat("{ ", n) + "ls;" + strings.Repeat(" }", n) },
}

// sized returns the shape's input closest to size bytes.
func sized(shape func(int) string, size int) string {
	unit := len(shape(2)) - len(shape(1))
	n := max(1, (size-len(shape(0)))/max(unit, 1))
	return shape(n)
}

func TestParse_BoundsInputBeforeParsing(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"300 KB of nested parentheses", strings.Repeat("(", 150000) + "ls" + strings.Repeat(")", 150000), "past the 65536"},
		{"300 KB of nested substitutions", sized(worstShapes["nested_subst"], 300<<10), "past the 65536"},
		{"just past the size bound", "echo " + strings.Repeat("a", MaxLen), "past the 65536"},
		{"deep parentheses within the size bound", strings.Repeat("(", 20000) + "ls" + strings.Repeat(")", 20000), "nested more than 100"},
		{"depth hidden behind quoted closers", sized(worstShapes["quoted_closer"], 50<<10), "nested more than 100"},
		{"deep if within the size bound", sized(worstShapes["nested_if"], 50<<10), "nested more than 100"},
		{"deep braces", sized(worstShapes["braces"], 10<<10), "nested more than 100"},
		{"many wrappers", sized(worstShapes["wrappers"], 60<<10), "more than 16 wrappers"},
		{"long arithmetic", sized(worstShapes["arith"], 8<<10), "more than 256 substitutions and arithmetic"},
		{"many substitutions", sized(worstShapes["substs"], 8<<10), "more than 256 substitutions and arithmetic"},
		{"many backticks", "echo " + strings.Repeat("`ls`", 300), "more than 256 substitutions and arithmetic"},
		{"nested shells past MaxDepth", strings.Repeat("sh -c ", 1) + quote(strings.Repeat("eval ", 2000)+"ls"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse(tt.src)
			if tt.want != "" && !strings.Contains(s.Unresolved, tt.want) {
				t.Errorf("Unresolved = %q, want it to say %q", s.Unresolved, tt.want)
			}
		})
	}
	// Within the bounds, depth that real commands use resolves precisely.
	src := strings.Repeat("( ", 40) + "rm x" + strings.Repeat(" )", 40) + " && echo $((1+2*3)) $(ls) `ls`"
	if s := Parse(src); s.Unresolved != "" || !s.MayRun("rm") {
		t.Errorf("40 nested subshells: Unresolved %q, MayRun(rm) %v", s.Unresolved, s.MayRun("rm"))
	}
}

// BenchmarkParse_CostPerKB resolves the worst shapes at 64 KiB, the size
// bound, with the cache bypassed, paired with the bare shell parser on the
// same input (benchpair): ns-matcher/op over 64 is the cost per KB, and
// x-parser the matcher's cost relative to parsing alone. Shapes past the
// nesting and expansion bounds cost one linear scan.
func BenchmarkParse_CostPerKB(b *testing.B) {
	for name, shape := range worstShapes {
		src := sized(shape, MaxLen-64)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			benchpair.Run(b, "parser", func() {
				_, _ = syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
			}, "matcher", func() {
				s := &Script{}
				if why := checkBounds(src); why == "" {
					s.add(src, 0, nil)
				}
			})
		})
	}
}
