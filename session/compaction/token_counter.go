package compaction

import (
	"encoding/json"
	"github.com/paigasus/helikon"
	"unicode/utf8"
)

// TokenCounter estimates how many tokens a conversation occupies in a
// model's context window. [Session] uses one to decide when to
// summarise. Implementations must be safe for concurrent use.
type TokenCounter interface {
	Count(items []helikon.Item) int
}

// HeuristicTokenCounter estimates one token per four characters:
// ceil(chars/4), where chars counts Unicode code points of every text and
// reasoning text (system summaries included), of tool results' nested
// content, and of each tool use's name and compact JSON arguments. Images
// count zero. It is deterministic and needs no tokenizer; plug a
// model-specific [TokenCounter] in where the estimate is too coarse.
type HeuristicTokenCounter struct{}

// Count returns the estimate for items.
func (HeuristicTokenCounter) Count(items []helikon.Item) int {
	chars := 0
	for _, it := range items {
		chars += partChars(it.Content)
	}
	return (chars + 3) / 4
}

func partChars(parts []helikon.ContentPart) int {
	n := 0
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			n += utf8.RuneCountInString(p.Text)
		case helikon.ReasoningPart:
			n += utf8.RuneCountInString(p.Text)
		case helikon.ToolUsePart:
			n += utf8.RuneCountInString(p.Name) + compactChars(p.Args)
		case helikon.ToolResultPart:
			n += partChars(p.Content)
		}
	}
	return n
}

// compactChars counts the code points of args as compact JSON (whitespace
// outside strings dropped), so the formatting a provider happened to send
// does not inflate the estimate. It scans rather than re-encodes: counting
// is on every append's path.
func compactChars(args json.RawMessage) int {
	n := 0
	inString, escaped := false, false
	for i := 0; i < len(args); {
		r, size := utf8.DecodeRune(args[i:])
		i += size
		switch {
		case inString && escaped:
			escaped = false
		case inString && r == '\\':
			escaped = true
		case r == '"':
			inString = !inString
		case !inString && (r == ' ' || r == '\t' || r == '\n' || r == '\r'):
			continue
		}
		n++
	}
	return n
}
