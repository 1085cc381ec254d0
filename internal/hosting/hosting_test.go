package hosting_test

import (
	"context"
	"errors"
	"github.com/paigasus/helikon/governance"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/hosting"
)

func TestMemory_SameIDSameSessionEmptyIDFreshEachTime(t *testing.T) {
	ctx := context.Background()
	m := hosting.NewMemory()
	a1, _ := m.Session(ctx, "a")
	a2, _ := m.Session(ctx, "a")
	b, _ := m.Session(ctx, "b")
	e1, _ := m.Session(ctx, "")
	e2, _ := m.Session(ctx, "")
	tests := []struct {
		name string
		x, y helikon.Session
		same bool
	}{
		{"same id", a1, a2, true},
		{"other id", a1, b, false},
		{"empty id", e1, e2, false},
		{"empty vs named", e1, a1, false},
	}
	for _, tt := range tests {
		if got := tt.x == tt.y; got != tt.same {
			t.Errorf("%s: same session = %v, want %v", tt.name, got, tt.same)
		}
	}
}

func TestFunc_PassesIDAndErrorThrough(t *testing.T) {
	boom := errors.New("boom")
	var seen string
	f := hosting.Func(func(_ context.Context, id string) (helikon.Session, error) {
		seen = id
		return nil, boom
	})
	if _, err := f.Session(context.Background(), "x"); !errors.Is(err, boom) || seen != "x" {
		t.Fatalf("err %v, id %q", err, seen)
	}
}

func TestPlanContext_StartsInPlanOptsAfterSessionLast(t *testing.T) {
	s := helikon.NewMemorySession()
	other := helikon.NewMemorySession()
	tests := []struct {
		name string
		opts []helikon.ContextOption
		want governance.PermissionMode
	}{
		{"default is plan", nil, governance.PermissionPlan},
		{"opts loosen it", []helikon.ContextOption{governance.WithPermissionMode(governance.PermissionDefault)}, governance.PermissionDefault},
		{"an option's session is replaced", []helikon.ContextOption{helikon.WithSession(other)}, governance.PermissionPlan},
	}
	for _, tt := range tests {
		build := hosting.PlanContext(tt.opts...)
		for range 2 { // the builder is reused per request
			rc := build(s)
			if governance.ModeOf(rc) != tt.want {
				t.Errorf("%s: mode %v, want %v", tt.name, governance.ModeOf(rc), tt.want)
			}
			if rc.Session() != s {
				t.Errorf("%s: the run does not use the request's session", tt.name)
			}
		}
	}
}
