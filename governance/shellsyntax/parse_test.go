package shellsyntax

import (
	"reflect"
	"testing"

	"github.com/paigasus/helikon/internal/shellstmt"
)

// TestParse_StatementsOuterFirstWithWritesAndAssigns pins what the parser
// hands the matcher: every statement, one nested in a substitution after
// the one holding it, with its unquoted words, written redirect targets
// (not descriptor duplications) and assignments.
func TestParse_StatementsOuterFirstWithWritesAndAssigns(t *testing.T) {
	lit := func(s string) shellstmt.Word { return shellstmt.Word{Text: s, Lit: true} }
	for _, tt := range []struct {
		src  string
		want []shellstmt.Stmt
	}{
		{"echo 'a b' >out 2>&1", []shellstmt.Stmt{{Words: []shellstmt.Word{lit("echo"), lit("a b")}, Writes: []string{"out"}}}},
		{"X=1 cat $(ls *.go)", []shellstmt.Stmt{
			{Words: []shellstmt.Word{lit("cat"), {Text: "$?"}}, Assigns: []shellstmt.Assign{{Name: "X", Value: "1"}}},
			{Words: []shellstmt.Word{lit("ls"), {Text: "*.go", Lit: true, Glob: true}}},
		}},
		{"export P=$HOME >\"$F\"", []shellstmt.Stmt{{Writes: []string{"$F"}, DynWrites: 1, Assigns: []shellstmt.Assign{{Name: "P", Value: "$HOME"}}}}},
	} {
		got, err := parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.src, got, tt.want)
		}
	}
	if _, err := parse("if then"); err == nil {
		t.Error(`"if then" parsed`)
	}
	if shellstmt.Parser == nil {
		t.Error("importing the package registers no parser")
	}
}

// TestParse_ArithmeticAndNamerefAssignAndSubscriptCodeIsUnresolved pins
// what the parser reports beyond words: the variables arithmetic assigns
// (with a value known only at run time), the target of a literal nameref,
// and why a statement cannot be resolved — a nameref with no literal
// target, a declaration's argument named by an expansion, ${x@P}, and text
// that a subscript would run as a command substitution.
func TestParse_ArithmeticAndNamerefAssignAndSubscriptCodeIsUnresolved(t *testing.T) {
	for _, tt := range []struct {
		src     string
		assigns []string // NAME=VALUE, in order
		why     string   // a prefix of the reason, "" for none
	}{
		{"((PATH=1))", []string{"PATH=$?"}, ""},
		{"let BASH_ENV+=1 i++", []string{"BASH_ENV=$?", "i=$?"}, ""},
		{"echo $((--n)); a[ENV=0]=1", []string{"n=$?", "a=1", "ENV=$?"}, ""},
		{"(( i < n )); echo $((i + 1))", nil, ""},
		{"declare -n p=PATH", []string{"p=PATH", "PATH=$?"}, ""},
		{"declare 'PATH=./bin'", []string{"PATH=./bin"}, ""},
		{"nameref p=PATH", []string{"p=PATH", "PATH=$?"}, ""},
		{"declare -n p", []string{"p="}, "a nameref with no target"},
		{`declare -n p="$v"`, []string{"p=$v"}, "a nameref whose target is named by an expansion"},
		{"export $x", nil, "export with an argument named by an expansion"},
		{`echo "${x@P}" "${x@Q}"`, nil, "${x@P}"},
		{"x='a[$(id)]'", []string{"x=a[$(id)]"}, "text that holds a substitution in an array subscript"},
		{"read x <<'EOF'\na[`id`]\nEOF", nil, "text that holds a substitution in an array subscript"},
		{"echo '$(date)' 'a[1]'", nil, ""},
	} {
		got, err := parse(tt.src)
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		var assigns []string
		why := ""
		for _, st := range got {
			for _, a := range st.Assigns {
				assigns = append(assigns, a.Name+"="+a.Value)
			}
			if why == "" {
				why = st.Unresolved
			}
		}
		if !reflect.DeepEqual(assigns, tt.assigns) {
			t.Errorf("%q: assigns %q, want %q", tt.src, assigns, tt.assigns)
		}
		if tt.why == "" && why != "" || tt.why != "" && (len(why) < len(tt.why) || why[:len(tt.why)] != tt.why) {
			t.Errorf("%q: unresolved %q, want %q…", tt.src, why, tt.why)
		}
	}
}
