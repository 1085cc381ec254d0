package governance

import (
	"context"
	"crypto/sha256"

	"github.com/paigasus/helikon"
)

// Recall implements [helikon.Recaller]: with [WithWrittenFileGuard], the
// files written by the calls of the conversation a run continues, and by
// the tool calls its session's log holds, join the run's record. A run
// resumed in another process, or a later run on the same session, then
// asks before it runs a script an earlier one wrote; the log holds the
// calls a compaction dropped from the conversation.
//
// A summary in the conversation (a system message: what a compaction
// projects to) stands for calls the conversation no longer holds. Unless
// the session's log holds that compaction and the calls before it, the
// record does not know every write: a fork of a compacted run into a new
// session, a compacted pause resumed without its session, or a system
// message given as a run's input (until the session's log holds it, as the
// runner records it) makes every run of a file ask.
func (g *settings) Recall(ctx context.Context, rc *helikon.RunContext, conv []helikon.Item, tools []helikon.Tool) {
	if g.written != nil {
		g.written.recall(ctx, rc, conv, tools)
	}
}

// recall is [settings.Recall] of the guard's record.
func (w *writtenFiles) recall(ctx context.Context, rc *helikon.RunContext, conv []helikon.Item, tools []helikon.Tool) {
	var view []helikon.Item
	var events []helikon.SessionEvent
	var readErr error
	w.mu.Lock()
	readLog := !w.logRead && rc.Session() != nil
	w.logRead = true
	if readLog {
		w.reading++
	}
	w.mu.Unlock()
	if readLog {
		// Read outside the lock: the log may be large or remote. Until
		// what it holds is in the record, a run of a file by another
		// agent of the run (one started beside this one) asks.
		view, events, readErr = readSessionLog(ctx, rc.Session())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		if readLog {
			w.reading-- // under the lock, after the merge
		}
		w.checkSummaries()
	}()
	if readErr != nil && w.unknown == "" {
		w.unknown = "writes in the session's earlier calls, which could not be read (" + readErr.Error() + ")"
	}
	if len(events) > 0 && events[0].Seq > 0 && w.unknown == "" {
		// A log counts from 0: one that starts later was trimmed (a Redis
		// session's WithMaxLen), and the calls it dropped are in neither
		// the log nor the conversation projected from it.
		w.unknown = "writes in the session's earliest calls, which its log no longer holds (it starts at event " + itoa(int(events[0].Seq)) + ")"
	}
	for i, ev := range events {
		switch ev.Kind {
		case helikon.KindToolCalled:
			w.recallCall(helikon.ToolUsePart{CallID: ev.CallID, Name: ev.Name, Args: ev.Args}, tools)
		case helikon.KindCompacted:
			// A compaction summarises the events before it; a marker
			// with fewer before it than it counts, or none, stands for
			// calls of another log (a fork's first event).
			if i == 0 || ev.OriginalCount > i {
				if w.unknown == "" {
					w.unknown = "writes in the calls a summary at event " + itoa(int(ev.Seq)) + " of the session's log stands for, which the log does not hold"
				}
				continue
			}
			w.summaries = setAdd(w.summaries, summaryKey(ev.Summary))
		case helikon.KindSystemMessage:
			// A system message of an earlier run's input, stored as given:
			// it stands for no calls.
			w.summaries = setAdd(w.summaries, summaryKey(helikon.Item{Content: ev.Content}.Text()))
		}
	}
	for _, it := range view {
		for _, p := range it.Content {
			if u, ok := p.(helikon.ToolUsePart); ok {
				w.recallCall(u, tools)
			}
		}
	}
	// Calls of the log whose tool an earlier recall did not have (a
	// handoff target's) are read with this agent's tools.
	retry := w.unread
	w.unread = nil
	for _, u := range retry {
		w.recallCall(u, tools)
	}
	for i, it := range conv {
		if i < len(view) && len(it.Content) > 0 && len(it.Content) == len(view[i].Content) && &it.Content[0] == &view[i].Content[0] {
			continue // the history the run loaded from the view, read above
		}
		if it.Role == helikon.RoleSystem {
			w.claimed = setAdd(w.claimed, summaryKey(it.Text()))
			continue
		}
		for _, p := range it.Content {
			if u, ok := p.(helikon.ToolUsePart); ok {
				w.recallCall(u, tools)
			}
		}
	}
}

// sharedLog is a session that hands out its projection without a copy
// and says whether its log is never trimmed: a session/sessioncache
// session over a SQLite or PostgreSQL log.
type sharedLog interface {
	SharedSnapshot(ctx context.Context) ([]helikon.Item, error)
	AppendOnly() bool
}

// readSessionLog reads what the record needs of s's log. A cached projection of
// a log that is never trimmed, and was never compacted (no summary opens
// it), holds every call of the log: it is read instead of the log, at the
// cost of the events appended since the cache last read it. Any other
// log is read whole.
func readSessionLog(ctx context.Context, s helikon.Session) ([]helikon.Item, []helikon.SessionEvent, error) {
	if sl, ok := s.(sharedLog); ok && sl.AppendOnly() {
		view, err := sl.SharedSnapshot(ctx)
		if err == nil && (len(view) == 0 || view[0].Role != helikon.RoleSystem) {
			return view, nil, nil
		}
	}
	events, err := s.Events(ctx, helikon.Beginning)
	return nil, events, err
}

// checkSummaries makes the record unknown when the conversations recalled
// hold a summary that no compaction of the session's log explains. It
// waits for the reads of the log under way: their summaries are not in
// the record yet.
func (w *writtenFiles) checkSummaries() {
	if w.reading > 0 || w.unknown != "" {
		return
	}
	for k := range w.claimed {
		if _, ok := w.summaries[k]; !ok {
			w.unknown = "writes in the calls a summary in the conversation stands for, which the session's log does not hold"
			return
		}
	}
}

// summaryKey is the key of a compaction summary in the record's sets: a
// hash, so the record does not hold the summaries' text.
func summaryKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	return string(sum[:])
}

// recallCall adds what one call of the conversation wrote, once per call.
// A call refused at the time counts too: a false alarm, never a miss.
// A call of a tool neither this agent has nor a built-in name implies is
// kept for the recall of another agent of the run.
func (w *writtenFiles) recallCall(u helikon.ToolUsePart, tools []helikon.Tool) {
	key := callKey(u.CallID, u.Name, u.Args)
	if _, ok := w.recalled[key]; ok {
		return
	}
	req := helikon.PermissionRequest{Tool: u.Name, CallID: u.CallID, Args: u.Args}
	for _, t := range tools {
		if t != nil && t.Name() == u.Name {
			req.Impl, req.Effect = t, helikon.EffectOf(t)
			break
		}
	}
	if _, builtin := builtinClass(u.Name); req.Impl == nil && !builtin {
		if len(w.unread) < maxWrittenFiles {
			w.unread = append(w.unread, u)
		} else if w.unknown == "" {
			// Dropping the call could drop a write: fail closed.
			w.unknown = "writes in more than " + itoa(maxWrittenFiles) + " earlier calls of tools not read yet"
		}
		return
	}
	w.recalled = setAdd(w.recalled, key)
	if at, ok := req.Impl.(*helikon.AgentTool); ok && mayWrite(at.Agent(), nil) {
		// The sub-agent's own calls are in neither the conversation nor
		// the session's log (its events reached the parent's stream
		// wrapped), so what it wrote is not known.
		if w.unknown == "" {
			w.unknown = "writes by agent " + quoteReason(at.Agent().Name()) + " (called as a tool in an earlier turn), whose calls the conversation and the session's log do not hold"
		}
		return
	}
	var v callView
	v.read(req)
	w.addWrites(&v)
}

// callKey tells the calls already in the record apart: by id, tool and
// arguments, since ids repeat (an OpenAI-compatible server that sends none
// gets call_0 for the first call of every turn, and a model or a log can
// pick its own), and a write must never pass for an earlier call of the
// same id. The arguments are hashed, so the set does not hold every
// script the run wrote.
func callKey(id, tool string, args []byte) string {
	sum := sha256.Sum256(args)
	return id + "\x00" + tool + "\x00" + string(sum[:])
}

// mayWrite reports whether a, called as a tool, could have written a
// file: any agent but an LLM agent whose tools are all read-only and
// none a shell or an edit tool (agents it calls as tools included) may.
func mayWrite(a helikon.Agent, seen map[helikon.Agent]bool) bool {
	llm, ok := a.(*helikon.LLMAgent)
	if !ok {
		return true
	}
	if seen[a] {
		return false // already being checked, up the chain
	}
	if seen == nil {
		seen = map[helikon.Agent]bool{}
	}
	seen[a] = true
	for _, t := range llm.Tools() {
		if at, ok := t.(*helikon.AgentTool); ok {
			if mayWrite(at.Agent(), seen) {
				return true
			}
			continue
		}
		// A shell runs whatever it is given, whatever its tool declares
		// (as the pipeline reads it); an edit tool's name says it writes.
		_, shell := t.(ShellTool)
		if class, _ := builtinClass(t.Name()); shell || class == classBash || class == classEdit ||
			helikon.EffectOf(t) != helikon.ReadOnly {
			return true
		}
	}
	return false
}
