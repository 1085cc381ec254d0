package compaction

import (
	"context"
	"errors"
	"fmt"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
	"log/slog"
	"math"
	"strings"
	"sync"
)

// DefaultPrompt is the instruction a [Session] sends
// after the conversation to ask for its summary.
const DefaultPrompt = "Summarise the conversation so far so that you can continue it from the summary alone. " +
	"Keep every fact, decision, user preference, name, number and identifier later turns may need, " +
	"the results of tool calls, open questions, and the state of any task in progress. " +
	"Write a concise briefing in plain prose, with no preamble."

// ErrInvalid reports a [Session] configured with a
// missing session or model or a threshold that is not positive.
var ErrInvalid = errors.New("compaction: invalid compacting session")

// ErrFailed reports that [Session.Append] stored the
// events but could not read the log or append the summary marker
// afterwards. The events must not be appended again.
var ErrFailed = errors.New("compaction: events stored, but compaction failed")

// Session wraps a [helikon.Session] and summarises the conversation with
// a model once it grows past a token threshold, so that the history sent to
// a model stays bounded however long the conversation runs.
//
// On every Append the wrapper first stores the events in the inner
// session. It then adds their estimate to a running count; only when that
// count exceeds the threshold does it read the log, project it
// ([helikon.Project]) and count it with its [TokenCounter] for the authoritative
// figure. The running count starts unknown, so the first Append of a
// wrapper over an already-populated session (a resumed conversation)
// always does the authoritative count and compacts the backlog.
//
// When the count exceeds the threshold, the projected messages and a
// trailing user message holding the prompt ([DefaultPrompt] or
// [WithPrompt]) go to the model, and its text becomes a
// [session.Compacted] marker appended to the inner session. The marker projects to
// one system message: a running summary of the whole history, which the
// next compaction summarises again along with what came after it. With
// [WithKeepRecentTurns] the newest turns stay verbatim after the summary.
//
// Compaction is best-effort: a model failure or a blank summary is logged
// at warn level and the Append still succeeds, while a failure to read the
// inner log or to append the marker is returned, matching
// [ErrFailed] (the events themselves were stored). Compaction is skipped
// when there is nothing to fold (no messages, or only a summary) and while
// a tool call awaits its result, so a call is never separated from its
// result.
//
// Two constraints follow from the design. Set the threshold well below the
// summarising model's context window, since the summary request carries
// the history being folded. And use a model whose summaries are much
// shorter than the threshold: a summary that is itself over the threshold
// cannot bring the count down (the guards above stop that from looping).
//
// Providers receive the summary as a system message, which most of them
// hoist to the top of the request: it reaches the model as an instruction
// rather than at its position in the conversation.
//
// A Session is safe for concurrent use, but compactions
// serialise on the wrapper; it is meant for the usual single writer per
// session (one run at a time). Concurrent writers should share the inner
// session, not one wrapper.
type Session struct {
	inner     helikon.Session
	model     helikon.Model
	threshold int
	counter   TokenCounter
	settings  helikon.ModelSettings
	prompt    string
	keepTurns int
	logger    *slog.Logger

	mu       sync.Mutex
	estimate int // running token estimate; math.MaxInt when unknown
}

var _ helikon.Session = (*Session)(nil)

// Option configures a [Session].
type Option func(*Session)

// WithTokenCounter replaces the [HeuristicTokenCounter].
func WithTokenCounter(c TokenCounter) Option {
	return func(s *Session) { s.counter = c }
}

// WithSettings sets the model settings of summary requests.
func WithSettings(ms helikon.ModelSettings) Option {
	return func(s *Session) { s.settings = ms }
}

// WithPrompt replaces [DefaultPrompt].
func WithPrompt(prompt string) Option {
	return func(s *Session) { s.prompt = prompt }
}

// WithKeepRecentTurns keeps the newest n turns (a turn starts at a user
// message) verbatim after the summary instead of folding everything. When
// those turns alone exceed the threshold, fewer are kept, down to none.
func WithKeepRecentTurns(n int) Option {
	return func(s *Session) { s.keepTurns = n }
}

// WithLogger sets where compaction warnings go (default
// [slog.Default]).
func WithLogger(l *slog.Logger) Option {
	return func(s *Session) { s.logger = l }
}

// New wraps inner so that model summarises it once its
// projected history counts more than threshold tokens.
func New(inner helikon.Session, model helikon.Model, threshold int, opts ...Option) (*Session, error) {
	s := &Session{
		inner:     inner,
		model:     model,
		threshold: threshold,
		counter:   HeuristicTokenCounter{},
		prompt:    DefaultPrompt,
		logger:    slog.Default(),
		estimate:  math.MaxInt,
	}
	for _, o := range opts {
		o(s)
	}
	switch {
	case inner == nil:
		return nil, fmt.Errorf("%w: nil inner session", ErrInvalid)
	case model == nil:
		return nil, fmt.Errorf("%w: nil model", ErrInvalid)
	case threshold <= 0:
		return nil, fmt.Errorf("%w: threshold %d must be positive", ErrInvalid, threshold)
	case s.counter == nil:
		return nil, fmt.Errorf("%w: nil token counter", ErrInvalid)
	case strings.TrimSpace(s.prompt) == "":
		return nil, fmt.Errorf("%w: empty prompt", ErrInvalid)
	case s.keepTurns < 0:
		return nil, fmt.Errorf("%w: keep-recent turns %d must not be negative", ErrInvalid, s.keepTurns)
	case s.logger == nil:
		return nil, fmt.Errorf("%w: nil logger", ErrInvalid)
	}
	return s, nil
}

// Events reads the inner session.
func (s *Session) Events(ctx context.Context, after helikon.SequenceID) ([]helikon.SessionEvent, error) {
	return s.inner.Events(ctx, after)
}

// Snapshot reads the inner session's projection.
func (s *Session) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return s.inner.Snapshot(ctx)
}

// Append stores events in the inner session, then compacts if the history
// has grown past the threshold.
func (s *Session) Append(ctx context.Context, events ...helikon.SessionEvent) error {
	if err := s.inner.Append(ctx, events...); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addEstimate(events)
	if s.estimate <= s.threshold {
		return nil
	}
	return s.compact(ctx)
}

// addEstimate adds the new events' count to the running estimate. A
// marker in the batch changes what the history projects to, so it makes
// the estimate unknown.
func (s *Session) addEstimate(events []helikon.SessionEvent) {
	if s.estimate == math.MaxInt {
		return
	}
	for _, ev := range events {
		if ev.Kind == helikon.KindCompacted {
			s.estimate = math.MaxInt
			return
		}
	}
	if n := s.counter.Count(helikon.Project(events)); n > math.MaxInt-s.estimate {
		s.estimate = math.MaxInt
	} else {
		s.estimate += n
	}
}

// compact does the authoritative count and, when it is over the threshold
// and there is something to fold, appends a summary marker.
func (s *Session) compact(ctx context.Context) error {
	events, err := s.inner.Events(ctx, helikon.Beginning)
	if err != nil {
		return fmt.Errorf("%w: read the log: %w", ErrFailed, err)
	}
	items := helikon.Project(events)
	s.estimate = s.counter.Count(items)
	if s.estimate <= s.threshold {
		return nil
	}
	cut := s.cut(items)
	if cut == 0 {
		return nil
	}
	summary, err := s.summarise(ctx, items[:cut])
	if err != nil {
		s.logger.WarnContext(ctx, "compaction: skipped: summary request failed",
			"error", err, "tokens", s.estimate, "threshold", s.threshold)
		return nil
	}
	if strings.TrimSpace(summary) == "" {
		s.logger.WarnContext(ctx, "compaction: skipped: the model returned a blank summary",
			"tokens", s.estimate, "threshold", s.threshold)
		return nil
	}
	marker := session.Compacted(summary, len(events))
	marker.KeptCount = len(items) - cut
	if err := s.inner.Append(ctx, marker); err != nil {
		return fmt.Errorf("%w: append the summary: %w", ErrFailed, err)
	}
	kept := items[cut:]
	s.estimate = s.counter.Count(append([]helikon.Item{helikon.SystemItem(summary)}, kept...))
	return nil
}

// cut returns how many leading items to fold into the summary, or 0 when
// compaction should wait: nothing but a previous summary would be folded,
// or (when folding everything) a tool call still awaits its result.
func (s *Session) cut(items []helikon.Item) int {
	// Positions where a turn starts; keeping from one of them never splits
	// a call from its result, since both belong to the turn they occur in.
	var turns []int
	for i, it := range items {
		if it.Role == helikon.RoleUser {
			turns = append(turns, i)
		}
	}
	for keep := min(s.keepTurns, len(turns)); keep > 0; keep-- {
		if at := turns[len(turns)-keep]; foldable(items[:at]) {
			return at
		}
	}
	if !foldable(items) || awaitingResult(items) {
		return 0
	}
	return len(items)
}

// foldable reports whether a prefix holds more than a previous summary:
// re-summarising a lone summary gains nothing and, if it stays over the
// threshold, would repeat on every append.
func foldable(prefix []helikon.Item) bool {
	for _, it := range prefix {
		if it.Role != helikon.RoleSystem {
			return true
		}
	}
	return false
}

// awaitingResult reports whether the current turn has a tool call whose
// result has not been logged yet. A call left unanswered by an earlier turn
// (a crash mid-tool) does not count: it will never be answered, and folding
// it into a summary is what repairs the transcript.
func awaitingResult(items []helikon.Item) bool {
	pending := map[string]bool{}
	for _, it := range items {
		switch it.Role {
		case helikon.RoleUser:
			clear(pending)
		case helikon.RoleAssistant:
			for _, u := range it.ToolUses() {
				pending[u.CallID] = true
			}
		case helikon.RoleTool:
			for _, p := range it.Content {
				if r, ok := p.(helikon.ToolResultPart); ok {
					delete(pending, r.CallID)
				}
			}
		}
	}
	return len(pending) > 0
}

// summarise asks the model to summarise items and returns its text.
func (s *Session) summarise(ctx context.Context, items []helikon.Item) (string, error) {
	msgs := make([]helikon.Item, 0, len(items)+1)
	msgs = append(append(msgs, items...), helikon.UserText(s.prompt)...)
	var b strings.Builder
	for ev, err := range s.model.Invoke(ctx, &helikon.ModelRequest{Messages: msgs, Settings: s.settings}) {
		if err != nil {
			return "", err
		}
		if d, ok := ev.(helikon.TokenDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String(), nil
}
