package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/paigasus/helikon"
)

// maxShown bounds a tool's arguments or output on its one-line summary.
const maxShown = 120

// printer renders a run for people: answer text as it streams on out, one
// compact line per tool call, tool result and handoff on info.
type printer struct {
	out, info io.Writer
	midLine   bool
	usage     helikon.Usage
}

// stream prints events and reports whether the run completed; a failed
// run's error is returned.
func (p *printer) stream(events func(func(helikon.Event) bool)) (bool, error) {
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
				if r, ok := part.(helikon.ToolResultPart); ok && !strings.HasPrefix(r.Name, "transfer_to_") {
					mark := "←"
					if r.IsError {
						mark = "✗"
					}
					p.line("%s %s %s", mark, r.Name, clip(helikon.Item{Content: r.Content}.Text()))
				}
			}
		case helikon.HandoffItem:
			p.line("⇢ handoff %s → %s", e.From, e.To)
		case helikon.RunCompleted:
			p.endLine()
			p.usage = e.Usage
			return true, nil
		case helikon.RunFailed:
			p.endLine()
			p.usage = e.Usage
			return false, e.Err
		case helikon.RunPaused:
			p.endLine()
			return false, fmt.Errorf("the run paused for an approval, which the helikon command cannot give")
		}
	}
	p.endLine()
	return false, nil
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
