package governance_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	rsession "github.com/paigasus/helikon/session/redis"
	"github.com/redis/go-redis/v9"
)

// A Redis session bounded with WithMaxLen drops the front of its log:
// a write older than the window is in neither the log nor the
// conversation projected from it. A later run cannot tell what those
// calls wrote, so it asks before it runs a file.
func TestWrittenFileGuard_ATrimmedSessionLogAsksBeforeAnyRun(t *testing.T) {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		t.Skipf("Redis not reachable at 127.0.0.1:6379: %v", err)
	}
	id := fmt.Sprintf("gov-trim-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		keys, _ := client.Keys(ctx, "*"+id+"*").Result()
		if len(keys) > 0 {
			client.Del(ctx, keys...)
		}
	})
	sess, err := rsession.New(client, id, rsession.WithMaxLen(6))
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{output: "ok"}
	// The write, then enough harmless turns to push it out of the window.
	m := mock.Scripted(writeCall("w1", "x.sh"), bashCallID("b1", "ls"), bashCallID("b2", "ls"),
		bashCallID("b3", "ls"), bashCallID("b4", "ls"), mock.Text("done"))
	agent, _ := helikon.NewAgent("ops", m, helikon.WithTools(rec.bashTool(), rec.writeTool()))
	rc := helikon.NewRunContext(helikon.WithSession(sess), governance.WithWrittenFileGuard())
	if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("write it")); err != nil {
		t.Fatal(err)
	}
	evs, err := sess.Events(ctx, helikon.Beginning)
	if err != nil || len(evs) == 0 || evs[0].Seq == 0 {
		t.Fatalf("the log was not trimmed (%d events, %v): the test shows nothing", len(evs), err)
	}
	for _, ev := range evs {
		if ev.Kind == helikon.KindToolCalled && ev.CallID == "w1" {
			t.Fatal("the write is still in the log: the test shows nothing")
		}
	}
	laterRunIsAsked(t, ctx, sess, rec, "b9", rec.writeTool())
}
