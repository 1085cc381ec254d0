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
