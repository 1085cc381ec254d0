package governance

import (
	"testing"

	"github.com/paigasus/helikon/internal/shellmatch"
	"github.com/paigasus/helikon/internal/shellstmt"
)

// TestRedTeam_WithoutAParserNoRowIsLooser judges the red-team corpus as a
// program that links no shell parser does: a row the fast reader splits
// must get the row's verdict, and no other row may be allowed (the
// approximate reading may still deny it, or a guard ask about it).
func TestRedTeam_WithoutAParserNoRowIsLooser(t *testing.T) {
	saved := shellstmt.Parser
	shellstmt.Parser = nil
	shellmatch.ResetCache()
	t.Cleanup(func() {
		shellstmt.Parser = saved
		shellmatch.ResetCache()
	})
	read, unread := 0, 0
	for _, r := range redTeamCorpus() {
		got, why := judge(r.cfg, r.cmd)
		s := shellmatch.Parse(r.cmd)
		switch {
		case s.Approx || s.Unresolved == shellmatch.NoParser:
			unread++
			if got == "allow" {
				t.Errorf("[%c] %q: allowed unread without a parser, want %s", r.cfg, r.cmd, r.want)
			}
		case got != r.want:
			t.Errorf("[%c] %q: %s without a parser (%s), want %s", r.cfg, r.cmd, got, why, r.want)
		default:
			read++
		}
	}
	t.Logf("without a parser: %d rows read and judged as the corpus says, %d unread and none allowed", read, unread)
}
