package governance

import (
	"context"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellmatch"
	"github.com/paigasus/helikon/internal/shellstmt"
)

// TestShellRules_WithoutAParserFailClosed pins what the rules do in a
// program that links no shell parser (one that imports neither tools/bash
// nor governance/shellsyntax): a command line the fast reader splits is
// judged as with the parser, and any other one is put to the approver by
// the default guards, and admitted by no allow rule. The command lines are
// this test's own: the matcher caches what it read of each.
func TestShellRules_WithoutAParserFailClosed(t *testing.T) {
	saved := shellstmt.Parser
	shellstmt.Parser = nil
	t.Cleanup(func() { shellstmt.Parser = saved })
	ctx := context.Background()
	for _, tt := range []struct {
		name, cmd string
		opts      []helikon.ContextOption
		allowed   bool
		// asked is a part of the question put to the approver, "" for none.
		asked string
	}{
		{"plain words run", "ls -l no-parser-dir && wc -l no-parser-file", nil, true, ""},
		{"a guard still reads plain words", "rm -rf / && echo no-parser", nil, false, "guard " + GuardRecursiveRemove},
		{"an expansion is asked about", "cat $(ls no-parser-dir)", nil, false, "governance/shellsyntax"},
		{"a loop is asked about", "for f in no-parser-*; do cat \"$f\"; done", nil, false, "governance/shellsyntax"},
		{"an allow rule admits plain words", "ls no-parser-allowed", []helikon.ContextOption{WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowBash("ls"))}, true, ""},
		{"an allow rule does not admit the unread", "ls $(echo no-parser-allowed)", []helikon.ContextOption{WithPermissionMode(PermissionDontAsk), WithAllowRules(AllowBash("ls"), AllowBash("echo"))}, false, "governance/shellsyntax"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := authorize(helikon.NewRunContext(tt.opts...), ctx, bash(tt.cmd))
			if a.allowed != tt.allowed || a.asked != (tt.asked != "") || !strings.Contains(a.prompt, tt.asked) {
				t.Errorf("%q: allowed %v, asked %v %q (%s); want allowed %v, a question with %q", tt.cmd, a.allowed, a.asked, a.prompt, a.reason, tt.allowed, tt.asked)
			}
		})
	}
	if s := shellmatch.Parse("cat $(ls no-parser-dir)"); s.Unresolved != shellmatch.NoParser {
		t.Errorf("unresolved %q, want %q", s.Unresolved, shellmatch.NoParser)
	}
}
