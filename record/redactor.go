package record

import (
	"encoding/json"
	"slices"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// Redactor scrubs secrets from what a recording keeps. The core's
// redactor ([helikon.Redactor]) is one.
type Redactor interface {
	RedactOutput(out helikon.ToolOutput) helikon.ToolOutput
	RedactText(s string) string
}

// RedactRequest rewrites req's texts, arguments and tool results through
// r, as a recording keeps them. req must be the caller's own copy
// ([mock.RequestOf]); a nil r leaves it as it is.
func RedactRequest(r Redactor, req *mock.Request) {
	if r == nil {
		return
	}
	for i, s := range req.Instructions {
		req.Instructions[i] = r.RedactText(s)
	}
	for i := range req.Messages {
		req.Messages[i].Content = redactParts(r, req.Messages[i].Content)
	}
	for i, t := range req.Tools {
		req.Tools[i].Description = r.RedactText(t.Description)
	}
}

// redactParts returns parts with every text redacted, in a new slice.
func redactParts(r Redactor, parts []helikon.ContentPart) []helikon.ContentPart {
	out := slices.Clone(parts)
	for i, p := range out {
		switch p := p.(type) {
		case helikon.TextPart:
			p.Text = r.RedactText(p.Text)
			out[i] = p
		case helikon.ReasoningPart:
			p.Text = r.RedactText(p.Text)
			out[i] = p
		case helikon.ToolUsePart:
			p.Args = redactJSON(r, p.Args)
			out[i] = p
		case helikon.ToolResultPart:
			p.Content = redactParts(r, p.Content)
			out[i] = p
		}
	}
	return out
}

// redactJSON redacts raw JSON as a tool output, which keeps it JSON.
func redactJSON(r Redactor, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return r.RedactOutput(helikon.ToolOutput{Content: raw}).Content
}

// redactEvent returns ev with its texts redacted.
func redactEvent(r Redactor, ev helikon.ModelEvent) helikon.ModelEvent {
	if r == nil {
		return ev
	}
	switch e := ev.(type) {
	case helikon.TokenDelta:
		e.Text = r.RedactText(e.Text)
		return e
	case helikon.ReasoningDelta:
		e.Text = r.RedactText(e.Text)
		return e
	case helikon.ToolCallDelta:
		e.ArgsDelta = r.RedactText(e.ArgsDelta)
		return e
	}
	return ev
}
