package redislog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon/server"
)

func TestLog_RelayCancelReachesTheOwnerOrSaysNobodyHeard(t *testing.T) {
	ctx := context.Background()
	prefix := testPrefix()
	owner := openLog(t, prefix)
	asker := openLog(t, prefix)
	gone := openLog(t, prefix)
	heard := make(chan string, 4)
	stop := owner.OnCancel(func(id string) { heard <- id })
	defer stop()

	newRun := func(l server.EventLog) string {
		info := server.RunInfo{ID: uuid.NewString(), Agent: "a", Status: server.StatusRunning, CreatedAt: time.Now().UTC()}
		if err := l.Create(ctx, info); err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	owned, orphan := newRun(owner), newRun(gone)
	_ = gone.Close() // its replica stops listening

	tests := []struct {
		name    string
		runID   string
		wantErr error
		heard   bool
	}{
		{"the owner hears it", owned, nil, true},
		{"an owner that stopped is reported", orphan, server.ErrCancelUndelivered, false},
		{"an unknown run", uuid.NewString(), server.ErrRunNotFound, false},
	}
	for _, tt := range tests {
		err := asker.RelayCancel(ctx, tt.runID)
		if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
			t.Fatalf("%s: err %v, want %v", tt.name, err, tt.wantErr)
		}
		if !tt.heard {
			continue
		}
		select {
		case id := <-heard:
			if id != tt.runID {
				t.Fatalf("%s: the owner heard %s", tt.name, id)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the owner heard nothing", tt.name)
		}
	}
	stop()
	if err := asker.RelayCancel(ctx, owned); err != nil {
		t.Fatalf("after its handler stopped the owner's log still listens: %v", err)
	}
	select {
	case id := <-heard:
		t.Fatalf("a stopped handler heard %s", id)
	case <-time.After(100 * time.Millisecond):
	}
}
