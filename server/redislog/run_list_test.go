package redislog_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon/server"
)

func TestRuns_ListsTheRunsUnderItsPrefixNewestFirst(t *testing.T) {
	ctx := context.Background()
	// A prefix with MATCH pattern characters, and a neighbour whose runs
	// the pattern would take if they were not escaped.
	id := uuid.NewString()
	l := openLog(t, "helikon-test:[runs]*:"+id+":")
	other := openLog(t, "helikon-test:runs-x:"+id+":")
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	runs := []server.RunInfo{
		{ID: "a", Agent: "greeter", SessionID: "s1", CreatedAt: t0},
		{ID: "b", Agent: "echo", CreatedAt: t0.Add(time.Second)},
		{ID: "c", Agent: "greeter", SessionID: "s1", CreatedAt: t0.Add(2 * time.Second)},
	}
	for _, r := range runs {
		r.Status = server.StatusRunning
		if err := l.Create(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := other.Create(ctx, server.RunInfo{ID: "z", Agent: "greeter", Status: server.StatusRunning, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		q    server.RunQuery
		want string
	}{
		{"all", server.RunQuery{}, "cba"},
		{"one agent", server.RunQuery{Agent: "greeter"}, "ca"},
		{"one session", server.RunQuery{SessionID: "s1", Limit: 1}, "c"},
		{"none", server.RunQuery{Agent: "nobody"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := l.Runs(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			ids := ""
			for _, r := range got {
				ids += r.ID
			}
			if ids != tt.want {
				t.Errorf("runs %q, want %q", ids, tt.want)
			}
		})
	}
}
