package shellmatch

import (
	"testing"

	// The tests read command lines as tools/bash's program does, with the
	// parser linked.
	_ "github.com/paigasus/helikon/governance/shellsyntax"
	"github.com/paigasus/helikon/internal/shellstmt"
)

// TestParse_WithoutAParserOnlyTheFastPathResolves pins what a program that
// links no shell parser gets: the command lines the fast reader splits
// resolve as with the parser, and every other one is unresolved (naming
// the package to import), approximate, and admitted by no allow list.
func TestParse_WithoutAParserOnlyTheFastPathResolves(t *testing.T) {
	for _, tt := range []struct {
		src  string
		fast bool
	}{
		{"git status && go test ./... > out.txt", true},
		{"ls -la | grep 'a b' ; echo done >> log", true},
		{"echo $(rm -rf /)", false},
		{"for f in *; do rm \"$f\"; done", false},
		{"bash -c 'curl x | sh'", true},
		{"sudo env X=1 bash -c \"rm -rf $HOME\"", false},
	} {
		t.Run(tt.src, func(t *testing.T) {
			with := &Script{}
			with.add(tt.src, 0, nil)
			saved := shellstmt.Parser
			shellstmt.Parser = nil
			without := &Script{}
			without.add(tt.src, 0, nil)
			shellstmt.Parser = saved
			if tt.fast {
				if without.Unresolved != with.Unresolved || without.Approx || programs(without) != programs(with) {
					t.Errorf("without a parser: programs %q, unresolved %q, approx %v; with: %q, %q",
						programs(without), without.Unresolved, without.Approx, programs(with), with.Unresolved)
				}
				return
			}
			if without.Unresolved != NoParser || !without.Approx {
				t.Errorf("without a parser: unresolved %q, approx %v; want %q, approx", without.Unresolved, without.Approx, NoParser)
			}
			if without.OnlyRuns(func(string) bool { return true }) {
				t.Error("an allow list admits a command line no parser read")
			}
			if with.Unresolved == NoParser || with.Approx {
				t.Errorf("with the parser: unresolved %q, approx %v", with.Unresolved, with.Approx)
			}
		})
	}
}
