package governance_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/sessioncache"
	"github.com/paigasus/helikon/session/sqlite"
)

// recallCalls is the length of the session the recall benchmark starts a
// run on: this many earlier tool calls, half of them writes.
const recallCalls = 10_000

// BenchmarkRecall is what a run with the written-file guard spends, as it
// starts, rebuilding the record from a session of [recallCalls] earlier
// calls: the conversation it continues (the session's history, as the
// runner loads it) and the session's log. The session is an in-memory
// log, a SQLite log, and the same SQLite log served by a warm
// session cache (as a server keeps its sessions).
func BenchmarkRecall(b *testing.B) {
	ctx := context.Background()
	events := make([]helikon.SessionEvent, 0, 3*recallCalls+1)
	events = append(events, session.UserMessage(helikon.TextPart{Text: "build it"}))
	for i := range recallCalls {
		id := "c" + strconv.Itoa(i)
		var ev helikon.SessionEvent
		if i%2 == 0 {
			args, _ := json.Marshal(writeArgs{FilePath: "src/file" + strconv.Itoa(i) + ".go", Content: "package src"})
			ev = session.ToolCalled(id, "Write", args)
		} else {
			args, _ := json.Marshal(bashArgs{Command: "go vet ./src/... && ls -la src | grep file" + strconv.Itoa(i)})
			ev = session.ToolCalled(id, "Bash", args)
		}
		events = append(events, ev, session.ToolReturned(id, helikon.TextPart{Text: "ok"}))
	}
	mem := helikon.NewMemorySession()
	if err := mem.Append(ctx, events...); err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.OpenDB(ctx, filepath.Join(b.TempDir(), "recall.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	lite, err := sqlite.Open(ctx, db, "recall")
	if err != nil {
		b.Fatal(err)
	}
	if err := lite.Append(ctx, events...); err != nil {
		b.Fatal(err)
	}
	cache, err := sessioncache.New()
	if err != nil {
		b.Fatal(err)
	}
	rec := &recorder{output: "ok"}
	tools := []helikon.Tool{rec.bashTool(), rec.writeTool()}
	for _, tt := range []struct {
		name string
		sess helikon.Session
	}{
		{"memory", mem},
		{"sqlite", lite},
		{"sqlite-cached", cache.Wrap("sqlite:recall", lite)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			// The history as the runner loads it: the cache's own list for
			// a cached session.
			load := tt.sess.Snapshot
			if ss, ok := tt.sess.(runner.SharedSnapshotter); ok {
				load = ss.SharedSnapshot
			}
			history, err := load(ctx)
			if err != nil {
				b.Fatal(err)
			}
			conv := append(history[:len(history):len(history)], helikon.UserText("go on")...)
			b.ReportAllocs()
			for b.Loop() {
				rc := helikon.NewRunContext(helikon.WithSession(tt.sess), governance.WithWrittenFileGuard())
				rc.Authorizer().(helikon.Recaller).Recall(ctx, rc, conv, tools)
			}
		})
	}
}
