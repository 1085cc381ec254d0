package runner_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session/sqlite"
)

// TestRunner_SystemItemsOfTheInputReachLaterRuns pins that a system item a
// caller puts in a run's input is stored with the run: the next run on the
// session sends it to the model where the first one did, on every backend.
func TestRunner_SystemItemsOfTheInputReachLaterRuns(t *testing.T) {
	ctx := context.Background()
	backends := []struct {
		name string
		open func(t *testing.T) helikon.Session
	}{
		{"memory", func(*testing.T) helikon.Session { return helikon.NewMemorySession() }},
		{"sqlite", func(t *testing.T) helikon.Session {
			db, err := sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "sessions.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			s, err := sqlite.Open(ctx, db, "user-42")
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			sess := b.open(t)
			model := mock.Scripted(mock.Text("bonjour"), mock.Text("ça va"))
			agent, err := helikon.NewAgent("greeter", model, helikon.WithInstructions("Be brief."))
			if err != nil {
				t.Fatal(err)
			}
			rc := helikon.NewRunContext(helikon.WithSession(sess))
			first := append([]helikon.Item{helikon.SystemItem("Answer in French.")}, helikon.UserText("hi")...)
			if _, err := runner.New().Run(ctx, agent, rc, first); err != nil {
				t.Fatal(err)
			}
			if _, err := runner.New().Run(ctx, agent, rc, helikon.UserText("how are you?")); err != nil {
				t.Fatal(err)
			}
			reqs := model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests, want 2", len(reqs))
			}
			// The instructions are rendered for each run; the input's system
			// item is the conversation's and comes back from the session.
			want := []string{"system:Be brief.", "system:Answer in French.", "user:hi", "assistant:bonjour", "user:how are you?"}
			if got := texts(reqs[1].Messages); !slices.Equal(got, want) {
				t.Fatalf("second run's request:\n got %q\nwant %q", got, want)
			}
			stored := slices.Concat(want[1:], []string{"assistant:ça va"})
			if got := texts(snapshot(t, sess)); !slices.Equal(got, stored) {
				t.Fatalf("session:\n got %q\nwant %q", got, stored)
			}
		})
	}
}

func texts(items []helikon.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Role) + ":" + it.Text()
	}
	return out
}
