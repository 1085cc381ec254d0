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
