package governance

import (
	"context"
	"testing"

	"github.com/paigasus/helikon"
)

// TestWrittenFileGuard_AsksAfterWritesUnderNamesTheWordsDoNotSpell pins the
// writes whose file name the command line does not hold: a compiler's
// default a.out, a download named by its URL or the server, a
// decompressor's output beside its operand. Each row is also run without
// the guard, to show it is the guard that asks.
func TestWrittenFileGuard_AsksAfterWritesUnderNamesTheWordsDoNotSpell(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		prior, last string
		asks        bool
	}{
		{"gcc x.c", "./a.out", true},
		{"cc -O2 x.c -lm", "./a.out", true},
		{"gcc-12 x.c", "./a.out", true},
		{"true", "gcc x.c && ./a.out", true},
		{"wget https://example.com/run", "./run", true},
		{"wget -q -P bin https://example.com/tool", "bin/tool", true},
		{"curl -sSLO https://example.com/run", "./run", true},
		{"curl --remote-name https://example.com/run", "bash run", true},
		{"curl -OJ https://example.com/x", "./whatever-the-server-named-it", true},
		{"gunzip run.gz", "./run", true},
		{"xz -d tool.xz", "bin/../tool", true},
		// Not writes of code, or named already.
		{"gcc -c x.c", "./a.out", false},
		{"gcc -o prog x.c", "./a.out", false},
		{"curl -s https://example.com/api", "./run", false},
		{"gzip -c run > run.gz", "./run", false},
	} {
		for _, guard := range []bool{true, false} {
			opts := []helikon.ContextOption{helikon.WithApprovalHandler(&approver{allow: true})}
			if guard {
				opts = append(opts, WithWrittenFileGuard())
			}
			rc := helikon.NewRunContext(opts...)
			authorize(rc, ctx, bash(tt.prior))
			a := authorize(rc, ctx, bash(tt.last))
			if got := a.asked && a.who == "guard "+GuardRunWrittenFile; got != (tt.asks && guard) {
				t.Errorf("guard=%v: %s; %s: asked by the guard = %v (asked=%v by %q), want %v", guard, tt.prior, tt.last, got, a.asked, a.who, tt.asks && guard)
			}
		}
	}
}

// TestWrittenFileGuard_AWriteThroughALinkCountsForWhatItPointsAt pins the
// link aliases: a hard link (which no resolver sees) or a symlink made by
// the run, written through later, changes the file it points at, which
// must then ask when run.
func TestWrittenFileGuard_AWriteThroughALinkCountsForWhatItPointsAt(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		calls []string // the last one is the run
		asks  bool
	}{
		{[]string{"ln ci.sh h", "echo evil > h", "bash ci.sh"}, true},
		{[]string{"ln -f -- ci.sh h", "echo evil > h", "./ci.sh"}, true},
		{[]string{"ln -s ci.sh h", "echo evil > h", "bash ci.sh"}, true},
		{[]string{"cp -l ci.sh h", "echo evil > h", "bash ci.sh"}, true},
		{[]string{"cp --link ci.sh h", "echo evil > h", "bash ci.sh"}, true},
		{[]string{"ln -t tmp ci.sh", "echo evil > tmp/ci.sh", "bash ci.sh"}, true},
		{[]string{"ln ci.sh h && echo evil > h", "bash ci.sh"}, true},
		{[]string{"cp ci.sh h", "echo evil > h", "bash ci.sh"}, false}, // a copy, not a link
	} {
		for _, guard := range []bool{true, false} {
			opts := []helikon.ContextOption{helikon.WithApprovalHandler(&approver{allow: true})}
			if guard {
				opts = append(opts, WithWrittenFileGuard())
			}
			rc := helikon.NewRunContext(opts...)
			for _, c := range tt.calls[:len(tt.calls)-1] {
				authorize(rc, ctx, bash(c))
			}
			a := authorize(rc, ctx, bash(tt.calls[len(tt.calls)-1]))
			if got := a.asked && a.who == "guard "+GuardRunWrittenFile; got != (tt.asks && guard) {
				t.Errorf("guard=%v: %q: asked by the guard = %v (asked=%v by %q), want %v", guard, tt.calls, got, a.asked, a.who, tt.asks && guard)
			}
		}
	}
}
