package cli

import (
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/paigasus/helikon"
)

// maxShown bounds a tool's arguments or output on its one-line summary.
const maxShown = 120

// printer renders a run for people: answer text as it streams on out, one
// compact line per tool call, tool result, refusal and handoff on info. A
// refused call shows as not run, with the reason, instead of a result.
type printer struct {
	out, info io.Writer
	midLine   bool
	usage     helikon.Usage
	// refused holds the calls refused since the last tool round, whose
	// error results the refusal line already said.
	refused map[string]bool
}

// ending is how one stream of a run ended: completed, paused for approval
// (paused is set), failed (err is set), or cut short (none of these).
type ending struct {
	completed bool
	paused    *helikon.RunState
	err       error
}

// stream prints events and reports how the run's stream ended.
func (p *printer) stream(events iter.Seq[helikon.Event]) ending {
	for ev := range events {
		switch e := ev.(type) {
		case helikon.TokenDelta:
			fmt.Fprint(p.out, e.Text)
			p.midLine = !strings.HasSuffix(e.Text, "\n")
		case helikon.ToolCallItem:
			for _, part := range e.Item.Content {
				if c, ok := part.(helikon.ToolUsePart); ok && !strings.HasPrefix(c.Name, "transfer_to_") {
					p.line("→ %s %s", c.Name, clip(string(c.Args)))
				}
			}
		case helikon.ToolOutputItem:
			for _, part := range e.Item.Content {
				if r, ok := part.(helikon.ToolResultPart); ok && !strings.HasPrefix(r.Name, "transfer_to_") && !p.refused[r.CallID] {
					mark := "←"
					if r.IsError {
						mark = "✗"
					}
					p.line("%s %s %s", mark, r.Name, clip(helikon.Item{Content: r.Content}.Text()))
				}
			}
		case helikon.PermissionDenied:
			if p.refused == nil {
				p.refused = map[string]bool{}
			}
			p.refused[e.CallID] = true
			p.line("⊘ %s not run: %s", e.Tool, clip(e.Reason))
		case helikon.HandoffItem:
			p.line("⇢ handoff %s → %s", e.From, e.To)
		case helikon.RunCompleted:
			p.endLine()
			p.usage = e.Usage
			return ending{completed: true}
		case helikon.RunFailed:
			p.endLine()
			p.usage = e.Usage
			return ending{err: e.Err}
		case helikon.RunPaused:
			p.endLine()
			p.usage = e.Usage
			if e.State == nil {
				return ending{err: fmt.Errorf("the run paused without a state to resume")}
			}
			return ending{paused: e.State}
		}
	}
	p.endLine()
	return ending{}
}

func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

func (p *printer) line(format string, args ...any) {
	p.endLine()
	fmt.Fprintf(p.info, "  "+format+"\n", args...)
}

// clip shortens s to one line of at most maxShown runes.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxShown {
		return string(r[:maxShown-1]) + "…"
	}
	return s
}
