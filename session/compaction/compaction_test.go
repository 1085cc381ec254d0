package compaction_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/session"
	"github.com/paigasus/helikon/session/compaction"
	"github.com/paigasus/helikon/session/sessiontest"
)

// spySession is a MemorySession that counts reads and can fail on demand.
type spySession struct {
	*helikon.MemorySession
	reads       atomic.Int64
	appends     atomic.Int64
	failReads   error
	failAppendN int64 // fail the Nth Append (1-based), 0 for never
}

func newSpy() *spySession { return &spySession{MemorySession: helikon.NewMemorySession()} }

func (s *spySession) Append(ctx context.Context, evs ...helikon.SessionEvent) error {
	if n := s.appends.Add(1); n == s.failAppendN {
		return errors.New("disk full")
	}
	return s.MemorySession.Append(ctx, evs...)
}

func (s *spySession) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	s.reads.Add(1)
	if s.failReads != nil {
		return nil, s.failReads
	}
	return s.MemorySession.Events(ctx, after)
}

func user(text string) helikon.SessionEvent { return session.UserMessage(helikon.TextPart{Text: text}) }

func assistant(text string) helikon.SessionEvent {
	return session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: text}}, "a")
}

// words returns a text of n four-character tokens by the heuristic.
func words(n int) string { return strings.Repeat("abcd", n) }

func mustCompacting(t *testing.T, inner helikon.Session, model helikon.Model, threshold int, opts ...compaction.Option) *compaction.Session {
	t.Helper()
	s, err := compaction.New(inner, model, threshold, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAppend(t *testing.T, s helikon.Session, evs ...helikon.SessionEvent) {
	t.Helper()
	if err := s.Append(t.Context(), evs...); err != nil {
		t.Fatalf("Append: %v", err)
	}
}

func snapshotTexts(t *testing.T, s helikon.Session) []string {
	t.Helper()
	items, err := s.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return itemTexts(items)
}

func itemTexts(items []helikon.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it.Role) + ":" + it.Text()
		for _, u := range it.ToolUses() {
			out[i] += "+call:" + u.CallID
		}
		for _, p := range it.Content {
			if r, ok := p.(helikon.ToolResultPart); ok {
				out[i] += "result:" + r.CallID
			}
		}
	}
	return out
}

func logTo(buf *bytes.Buffer) compaction.Option {
	return compaction.WithLogger(slog.New(slog.NewTextHandler(buf, nil)))
}

func TestSession_Conformance(t *testing.T) {
	sessiontest.Run(t, func(*testing.T) helikon.Session {
		// Never over the threshold: the suite sees the inner log unchanged.
		return mustCompacting(t, helikon.NewMemorySession(), mock.Scripted(), math.MaxInt)
	})
}

func TestNew_RejectsBadConfiguration(t *testing.T) {
	inner, model := helikon.NewMemorySession(), mock.Scripted()
	for _, tc := range []struct {
		name      string
		inner     helikon.Session
		model     helikon.Model
		threshold int
		opts      []compaction.Option
	}{
		{"nil inner", nil, model, 10, nil},
		{"nil model", inner, nil, 10, nil},
		{"zero threshold", inner, model, 0, nil},
		{"negative threshold", inner, model, -5, nil},
		{"nil counter", inner, model, 10, []compaction.Option{compaction.WithTokenCounter(nil)}},
		{"blank prompt", inner, model, 10, []compaction.Option{compaction.WithPrompt(" \n")}},
		{"negative keep", inner, model, 10, []compaction.Option{compaction.WithKeepRecentTurns(-1)}},
		{"nil logger", inner, model, 10, []compaction.Option{compaction.WithLogger(nil)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := compaction.New(tc.inner, tc.model, tc.threshold, tc.opts...); !errors.Is(err, compaction.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalidCompaction", err)
			}
		})
	}
}

func TestSession_UnderThresholdNeverCallsModel(t *testing.T) {
	model := mock.Scripted()
	s := mustCompacting(t, helikon.NewMemorySession(), model, 100)
	mustAppend(t, s, user(words(40)), assistant(words(40)))
	if n := len(model.Requests()); n != 0 {
		t.Fatalf("model called %d times under the threshold", n)
	}
	if got := snapshotTexts(t, s); len(got) != 2 {
		t.Fatalf("Snapshot = %q, want the two messages", got)
	}
}

func TestSession_OverThresholdAppendsSummaryMarker(t *testing.T) {
	model := mock.Scripted(mock.Text("the user asked about dining"))
	inner := helikon.NewMemorySession()
	s := mustCompacting(t, inner, model, 50, compaction.WithSettings(helikon.ModelSettings{MaxOutputTokens: 256}))
	mustAppend(t, s, user(words(30)), assistant(words(30)))

	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model called %d times, want 1", len(reqs))
	}
	if got, want := itemTexts(reqs[0].Messages), []string{"user:" + words(30), "assistant:" + words(30), "user:" + compaction.DefaultPrompt}; !equal(got, want) {
		t.Fatalf("summary request = %q, want the projected history then the prompt", got)
	}
	if reqs[0].Settings.MaxOutputTokens != 256 {
		t.Fatalf("summary request settings = %+v, want the configured ones", reqs[0].Settings)
	}
	evs, err := inner.Events(t.Context(), helikon.Beginning)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || evs[2].Kind != helikon.KindCompacted || evs[2].Summary != "the user asked about dining" ||
		evs[2].OriginalCount != 2 || evs[2].KeptCount != 0 {
		t.Fatalf("log = %+v, want the two events then a marker summarising them", evs)
	}
	if got := snapshotTexts(t, s); !equal(got, []string{"system:the user asked about dining"}) {
		t.Fatalf("Snapshot = %q, want the lone summary", got)
	}
}

func TestSession_CustomPromptIsTheTrailingUserMessage(t *testing.T) {
	model := mock.Scripted(mock.Text("s"))
	s := mustCompacting(t, helikon.NewMemorySession(), model, 10, compaction.WithPrompt("Summarise in French."))
	mustAppend(t, s, user(words(20)))
	msgs := model.Requests()[0].Messages
	if last := msgs[len(msgs)-1]; last.Role != helikon.RoleUser || last.Text() != "Summarise in French." {
		t.Fatalf("last message = %+v, want the custom prompt", last)
	}
}

// The running estimate starts unknown: the first append to a wrapper over a
// populated log reads and counts it, and compacts the backlog.
func TestSession_FirstAppendCompactsExistingBacklog(t *testing.T) {
	inner := newSpy()
	mustAppend(t, inner.MemorySession, user(words(40)), assistant(words(40)))
	model := mock.Scripted(mock.Text("backlog summary"))
	s := mustCompacting(t, inner, model, 50)
	mustAppend(t, s, user("hi"))
	if len(model.Requests()) != 1 {
		t.Fatal("the first append did not compact the existing backlog")
	}
	if got := snapshotTexts(t, s); !equal(got, []string{"system:backlog summary"}) {
		t.Fatalf("Snapshot = %q", got)
	}
}

// Below the threshold, appends add to the running estimate without reading
// the log; the authoritative count runs only once the estimate is over.
func TestSession_RunningEstimateAvoidsReads(t *testing.T) {
	inner := newSpy()
	counter := &countingCounter{}
	model := mock.Scripted(mock.Text("summary"))
	s := mustCompacting(t, inner, model, 100, compaction.WithTokenCounter(counter))
	mustAppend(t, s, user(words(10))) // first append: authoritative
	if r := inner.reads.Load(); r != 1 {
		t.Fatalf("first append read the log %d times, want 1", r)
	}
	for range 8 { // 10 + 8*10 = 90 tokens: still under
		mustAppend(t, s, user(words(10)))
	}
	if r := inner.reads.Load(); r != 1 {
		t.Fatalf("appends under the threshold read the log %d more times", r-1)
	}
	mustAppend(t, s, user(words(20))) // 110: over
	if r := inner.reads.Load(); r != 2 {
		t.Fatalf("crossing the threshold read the log %d times in total, want 2", r)
	}
	if len(model.Requests()) != 1 {
		t.Fatal("crossing the threshold did not compact")
	}
	if counter.calls.Load() == 0 {
		t.Fatal("the configured token counter was not used")
	}
}

type countingCounter struct{ calls atomic.Int64 }

func (c *countingCounter) Count(items []helikon.Item) int {
	c.calls.Add(1)
	return compaction.HeuristicTokenCounter{}.Count(items)
}

func TestSession_FailedSummariesAreLoggedAndSwallowed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script mock.Script
		log    string
	}{
		{"model error", mock.Fail(&helikon.ModelError{Kind: helikon.ModelRateLimited, Provider: "mock", Message: "slow down"}), "summary request failed"},
		{"blank summary", mock.Deltas("  ", "\n\t"), "blank summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			inner := helikon.NewMemorySession()
			s := mustCompacting(t, inner, mock.Scripted(tc.script), 10, logTo(&logs))
			if err := s.Append(t.Context(), user(words(20))); err != nil {
				t.Fatalf("Append = %v, want the failure swallowed", err)
			}
			evs, _ := inner.Events(t.Context(), helikon.Beginning)
			if len(evs) != 1 || evs[0].Kind != helikon.KindUserMessage {
				t.Fatalf("log = %+v, want the user's event and no marker", evs)
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), tc.log) {
				t.Fatalf("log output %q, want a warning mentioning %q", logs.String(), tc.log)
			}
		})
	}
}

func TestSession_InnerFailuresPropagate(t *testing.T) {
	t.Run("user events", func(t *testing.T) {
		inner := newSpy()
		inner.failAppendN = 1
		model := mock.Scripted(mock.Text("s"))
		s := mustCompacting(t, inner, model, 10)
		if err := s.Append(t.Context(), user(words(20))); err == nil || errors.Is(err, compaction.ErrFailed) {
			t.Fatalf("Append = %v, want the inner failure, not a compaction failure", err)
		}
		if len(model.Requests()) != 0 {
			t.Fatal("compaction ran after the events failed to persist")
		}
	})
	t.Run("reading the log", func(t *testing.T) {
		inner := newSpy()
		readErr := errors.New("replica lagging")
		inner.failReads = readErr
		s := mustCompacting(t, inner, mock.Scripted(mock.Text("s")), 10)
		if err := s.Append(t.Context(), user(words(20))); !errors.Is(err, readErr) || !errors.Is(err, compaction.ErrFailed) {
			t.Fatalf("Append = %v, want the read failure", err)
		}
		evs, _ := inner.MemorySession.Events(t.Context(), helikon.Beginning)
		if len(evs) != 1 {
			t.Fatal("the user's event was not persisted before compaction")
		}
	})
	t.Run("appending the marker", func(t *testing.T) {
		inner := newSpy()
		inner.failAppendN = 2
		s := mustCompacting(t, inner, mock.Scripted(mock.Text("s")), 10)
		if err := s.Append(t.Context(), user(words(20))); !errors.Is(err, compaction.ErrFailed) || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("Append = %v, want the marker append failure", err)
		}
	})
}

// A summary still over the threshold cannot bring the count down; the
// guards stop compaction from re-summarising a lone summary or nothing.
func TestSession_ConvergenceGuards(t *testing.T) {
	t.Run("summary over threshold compacts once per append", func(t *testing.T) {
		model := mock.Scripted(mock.Text(words(40)), mock.Text("unused"))
		s := mustCompacting(t, helikon.NewMemorySession(), model, 10)
		mustAppend(t, s, user(words(20)))
		if n := len(model.Requests()); n != 1 {
			t.Fatalf("model called %d times, want 1", n)
		}
		// The log projects to one over-threshold summary: a harmless append
		// that projects to nothing must not re-summarise it.
		mustAppend(t, s, session.HandoffOccurred("a", "b"))
		if n := len(model.Requests()); n != 1 {
			t.Fatalf("a lone summary was re-summarised (%d model calls)", n)
		}
	})
	t.Run("empty projection", func(t *testing.T) {
		model := mock.Scripted(mock.Text("unused"))
		s := mustCompacting(t, helikon.NewMemorySession(), model, 10, compaction.WithTokenCounter(constCounter(11)))
		mustAppend(t, s, session.HandoffOccurred("a", "b"))
		if n := len(model.Requests()); n != 0 {
			t.Fatalf("an empty projection was summarised (%d model calls)", n)
		}
	})
}

type constCounter int

func (c constCounter) Count([]helikon.Item) int { return int(c) }

// Folding everything while a tool call awaits its result would leave the
// result without its call; compaction waits for the result.
func TestSession_WaitsForPendingToolResult(t *testing.T) {
	model := mock.Scripted(mock.Text("summary"))
	inner := helikon.NewMemorySession()
	s := mustCompacting(t, inner, model, 10)
	mustAppend(t, s, user(words(20)), session.ToolCalled("c1", "lookup", json.RawMessage(`{}`)))
	if len(model.Requests()) != 0 {
		t.Fatal("compacted while a tool call awaited its result")
	}
	mustAppend(t, s, session.ToolReturned("c1", helikon.TextPart{Text: "42"}))
	if len(model.Requests()) != 1 {
		t.Fatal("did not compact once the result arrived")
	}
	mustAppend(t, s, assistant("done"))
	if got := snapshotTexts(t, s); !equal(got, []string{"system:summary", "assistant:done"}) {
		t.Fatalf("Snapshot = %q", got)
	}
}

// A call a crashed run never answered must not block compaction forever.
func TestSession_UnansweredCallOfAnEarlierTurnDoesNotBlock(t *testing.T) {
	model := mock.Scripted(mock.Text("summary"))
	s := mustCompacting(t, helikon.NewMemorySession(), model, 10)
	mustAppend(t, s, user(words(5)), session.ToolCalled("lost", "lookup", json.RawMessage(`{}`)))
	mustAppend(t, s, user(words(20)))
	if len(model.Requests()) != 1 {
		t.Fatal("an orphaned call from an earlier turn blocked compaction")
	}
}

func toolTurn(n string, size int) []helikon.SessionEvent {
	return []helikon.SessionEvent{
		user("q" + n + words(size)),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "checking"}}, "a"),
		session.ToolCalled("c"+n, "lookup", json.RawMessage(`{}`)),
		session.ToolReturned("c"+n, helikon.TextPart{Text: "r" + n}),
		assistant("answer " + n),
	}
}

func TestSession_KeepRecentTurnsVerbatim(t *testing.T) {
	model := mock.Scripted(mock.Text("S1"), mock.Text("S2"))
	inner := helikon.NewMemorySession()
	s := mustCompacting(t, inner, model, 60, compaction.WithKeepRecentTurns(1))
	mustAppend(t, s, toolTurn("1", 20)...)
	mustAppend(t, s, toolTurn("2", 20)...)
	mustAppend(t, s, toolTurn("3", 20)...) // 27 tokens a turn: over 60 with the third
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("model called %d times, want 1", len(reqs))
	}
	wantFolded := []string{
		"user:q1" + words(20), "assistant:checking+call:c1", "tool:result:c1", "assistant:answer 1",
		"user:q2" + words(20), "assistant:checking+call:c2", "tool:result:c2", "assistant:answer 2",
		"user:" + compaction.DefaultPrompt,
	}
	if got := itemTexts(reqs[0].Messages); !equal(got, wantFolded) {
		t.Fatalf("summary request = %q, want the two older turns then the prompt", got)
	}
	wantSnap := []string{"system:S1", "user:q3" + words(20), "assistant:checking+call:c3", "tool:result:c3", "assistant:answer 3"}
	if got := snapshotTexts(t, s); !equal(got, wantSnap) {
		t.Fatalf("Snapshot = %q, want the summary then the newest turn verbatim", got)
	}

	// The next compaction folds the previous summary with what followed it.
	mustAppend(t, s, toolTurn("4", 20)...)
	mustAppend(t, s, toolTurn("5", 20)...)
	reqs = model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model called %d times, want 2", len(reqs))
	}
	if got := itemTexts(reqs[1].Messages); got[0] != "system:S1" || got[1] != "user:q3"+words(20) {
		t.Fatalf("second summary request starts %q, want the first summary then turn 3", got[:2])
	}
	if got := snapshotTexts(t, s); got[0] != "system:S2" || got[1] != "user:q5"+words(20) || len(got) != 5 {
		t.Fatalf("Snapshot = %q, want S2 then turn 5", got)
	}
}

// When the newest turns alone are over the threshold, fewer are kept, down
// to a full summary, so compaction still makes progress.
func TestSession_KeepRecentFallsBackWhenTurnsAloneTooBig(t *testing.T) {
	model := mock.Scripted(mock.Text("S"))
	s := mustCompacting(t, helikon.NewMemorySession(), model, 20, compaction.WithKeepRecentTurns(3))
	mustAppend(t, s, user(words(30)), assistant("a"))
	if len(model.Requests()) != 1 {
		t.Fatal("one oversized turn was not compacted")
	}
	if got := snapshotTexts(t, s); !equal(got, []string{"system:S"}) {
		t.Fatalf("Snapshot = %q, want the lone summary", got)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// discardSession accepts appends and stores nothing, so a benchmark measures
// the wrapper alone.
type discardSession struct{}

func (discardSession) Append(context.Context, ...helikon.SessionEvent) error { return nil }
func (discardSession) Events(context.Context, helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return nil, nil
}
func (discardSession) Snapshot(context.Context) ([]helikon.Item, error) { return nil, nil }

// summaryModel answers every request with the same short summary.
type summaryModel struct{}

func (summaryModel) Capabilities() helikon.ModelCapabilities { return helikon.ModelCapabilities{} }
func (summaryModel) Invoke(context.Context, *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		_ = yield(helikon.TokenDelta{Text: "summary"}, nil) && yield(helikon.Finish{Reason: helikon.FinishStop}, nil)
	}
}

// The common path: an append under the threshold only updates the
// running estimate.
func BenchmarkSession_AppendUnderThreshold(b *testing.B) {
	s, err := compaction.New(discardSession{}, summaryModel{}, math.MaxInt-1)
	if err != nil {
		b.Fatal(err)
	}
	ev := user("How much did I spend on dining last month, and am I on track for this month's budget?")
	ctx := b.Context()
	if err := s.Append(ctx, ev); err != nil { // the first append counts the (empty) log
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Append(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// The compaction path on a 100-event log: read, project, count, summarise
// and append the marker.
func BenchmarkSession_Compact100(b *testing.B) {
	log := make([]helikon.SessionEvent, 0, 100)
	for i := range 50 {
		log = append(log, user(fmt.Sprintf("question %d: %s", i, words(20))), assistant(words(20)))
	}
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		inner := helikon.NewMemorySession()
		if err := inner.Append(ctx, log...); err != nil {
			b.Fatal(err)
		}
		s, err := compaction.New(inner, summaryModel{}, 500)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Append(ctx, user("next")); err != nil {
			b.Fatal(err)
		}
	}
}
