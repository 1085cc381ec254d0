package helikon

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/paigasus/helikon/internal/coredefault"
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
		WithApprovalHandler(deferEvery{}), WithUser("u"), WithAuthorizer(allowAll{}), WithRedactor(upper{}),
		WithGrants("Bash(ls)"))
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
		{"user", WithUser("other"), func(s *runSettings) bool { return s.user != "u" }},
		{"authorizer", WithAuthorizer(nil), func(s *runSettings) bool { return s.auth == nil }},
		{"refined authorizer", WithAuthorizerFrom(func(Authorizer) (Authorizer, error) { return nil, errors.New("no") }),
			func(s *runSettings) bool { return s.optErr != nil }},
		{"redactor", WithRedactor(nil), func(s *runSettings) bool { return s.redactor == nil }},
		{"grants", WithGrants("Read"), func(s *runSettings) bool { return len(s.grants) != 1 }},
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

// TestRunContext_FourChildrensContextsFit416Bytes pins the size that
// keeps the contexts of a fan-out's children small: Children(4), the
// contexts of a diamond's nodes, takes no more than 416 bytes (a size
// class), in one allocation holding the contexts and their action
// handles; what options set lies behind one shared pointer. It reads the
// layout rather than the allocator's counters, which count every
// goroutine's allocations: a straggler an earlier test left running (a
// tool that ignores cancellation) made the count flaky.
func TestRunContext_FourChildrensContextsFit416Bytes(t *testing.T) {
	if size := unsafe.Sizeof(smallChildContexts{}); size > 416 {
		t.Errorf("four children's contexts take %d bytes, want at most 416", size)
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

// TestNewRunContext_SharesTheDefaultsUntilTheyChange pins that a context
// no option touched shares one set of settings holding the governance
// package's defaults (its own allocation is the context alone, no set of
// settings of its own), and that the defaults are read again when they
// change, as a package's init may build a context before governance's
// init has set them: a cache that kept the first defaults would leave
// such contexts without the guard rules.
func TestNewRunContext_SharesTheDefaultsUntilTheyChange(t *testing.T) {
	prevA, prevR := coredefault.Authorizer, coredefault.Redactor
	t.Cleanup(func() { coredefault.Authorizer, coredefault.Redactor = prevA, prevR })
	coredefault.Authorizer, coredefault.Redactor = nil, nil
	before := NewRunContext()
	if before.Authorizer() != nil || before.Redactor() != nil {
		t.Fatalf("with no defaults, a context has authorizer %v and redactor %v", before.Authorizer(), before.Redactor())
	}
	if a, b := NewRunContext(), NewRunContext(); a.rare == nil || a.rare != b.rare {
		t.Error("two contexts without options do not share one set of settings")
	}
	if n := testing.AllocsPerRun(100, func() { NewRunContext() }); n > 1+allocsOfDefaultParts {
		t.Errorf("a context without options allocates %v times, want %d", n, 1+allocsOfDefaultParts)
	}
	auth, red := allowAll{}, upper{}
	coredefault.Authorizer, coredefault.Redactor = Authorizer(auth), Redactor(red)
	after := NewRunContext()
	if after.Authorizer() != Authorizer(auth) || after.Redactor() != Redactor(red) {
		t.Errorf("after the defaults changed, a new context has authorizer %v and redactor %v", after.Authorizer(), after.Redactor())
	}
	if before.Authorizer() != nil {
		t.Error("a context made before the defaults changed took the new ones")
	}
}

// allocsOfDefaultParts counts what NewRunContext allocates beside the
// context: its memory session, hook registry, state and action handle.
const allocsOfDefaultParts = 4

// allowAll lets every call run.
type allowAll struct{}

func (allowAll) Authorize(context.Context, *RunContext, PermissionRequest, Asker) Verdict {
	return Verdict{Allowed: true}
}

// upper is a Redactor that upper-cases text.
type upper struct{}

func (upper) RedactOutput(out ToolOutput) ToolOutput { return out }
func (upper) RedactText(s string) string             { return strings.ToUpper(s) }
