package helikon

import (
	"context"
	"testing"
	"unsafe"
)

// TestRunContext_DeriveLeavesItsParentsSettingsAsTheyWere pins that the
// settings a derived context shares with its parent are copied before an
// option writes them: the derived context sees the new setting and the
// parent's others, the parent and its children only their own.
func TestRunContext_DeriveLeavesItsParentsSettingsAsTheyWere(t *testing.T) {
	var observed int
	observe := func(context.Context, *ModelCall) { observed++ }
	parent := NewRunContext(WithTracer(TracerHandle{SessionID: "p"}), WithPrices(Prices{"m": {Input: 1}}),
		WithBudget(Budget{MaxTokens: 7}), WithRunStateKey([]byte("k")), WithModelCallObserver(observe),
		WithApprovalHandler(deferEvery{}))
	child := parent.Child()
	for _, tc := range []struct {
		name    string
		opt     ContextOption
		changed func(*runSettings) bool
	}{
		{"tracer", WithTracer(TracerHandle{SessionID: "d"}), func(s *runSettings) bool { return s.tracer.SessionID != "p" }},
		{"prices", WithPrices(nil), func(s *runSettings) bool { return s.prices == nil }},
		{"budget", WithBudget(Budget{}), func(s *runSettings) bool { return s.budget.MaxTokens != 7 }},
		{"state key", WithRunStateKey([]byte("other")), func(s *runSettings) bool { return string(s.stateKey) != "k" }},
		{"model call observer", WithModelCallObserver(nil), func(s *runSettings) bool { return s.callObserver == nil }},
		{"tracer provider", WithTracerProvider(nil), func(s *runSettings) bool { return s.tp != nil }},
		{"approval handler", WithApprovalHandler(nil), func(s *runSettings) bool { return s.approval == nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := child.Derive(tc.opt)
			if tc.name != "tracer provider" && !tc.changed(d.settings()) {
				t.Error("the derived context does not have its own setting")
			}
			if tc.changed(parent.settings()) || tc.changed(child.settings()) {
				t.Error("deriving a context changed its parent's settings")
			}
			if tc.name != "tracer" && d.Tracer().SessionID != "p" {
				t.Errorf("the derived context's tracer is %q, want the parent's", d.Tracer().SessionID)
			}
		})
	}
}

// TestRunContext_FourChildrensContextsFit768Bytes pins the size that
// keeps the contexts of a fan-out's children small: Children(4), the
// contexts of a diamond's nodes, takes no more than 768 bytes, in one
// allocation holding the contexts and their action handles. It reads the
// layout rather than the allocator's counters, which count every
// goroutine's allocations: a straggler an earlier test left running (a
// tool that ignores cancellation) made the count flaky.
func TestRunContext_FourChildrensContextsFit768Bytes(t *testing.T) {
	if size := unsafe.Sizeof(smallChildContexts{}); size > 768 {
		t.Errorf("four children's contexts take %d bytes, want at most 768", size)
	}
	cs := NewRunContext().Children(4)
	lo := uintptr(unsafe.Pointer(&cs[0]))
	hi := lo + unsafe.Sizeof(smallChildContexts{})
	for i := range cs {
		if p := uintptr(unsafe.Pointer(cs[i].actions)); p < lo || p >= hi {
			t.Errorf("child %d's actions lie outside its contexts' allocation", i)
		}
	}
}

// TestNewRunContext_MakesItsSettingsOnceForManyOptions pins that a context
// given several of the settings few runs have allocates them once, as a
// traced run's context is given a provider and attributes.
func TestNewRunContext_MakesItsSettingsOnceForManyOptions(t *testing.T) {
	tp, h := WithTracerProvider(nil), WithTracer(TracerHandle{SessionID: "s"})
	one := testing.AllocsPerRun(100, func() { NewRunContext(h) })
	two := testing.AllocsPerRun(100, func() { NewRunContext(tp, h) })
	if two != one {
		t.Errorf("a context with two settings allocates %v times, with one %v", two, one)
	}
	if d := NewRunContext(tp, h).Derive(WithBudget(Budget{MaxTokens: 1})); d.Tracer().SessionID != "s" {
		t.Errorf("derived tracer %q, want the parent's", d.Tracer().SessionID)
	}
}

// deferEvery is an approval handler that defers every question.
type deferEvery struct{}

func (deferEvery) Decide(context.Context, PermissionRequest, string) ApprovalOutcome {
	return ApprovalOutcome{Defer: true}
}
