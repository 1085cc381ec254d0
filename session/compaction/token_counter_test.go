package compaction_test

import (
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/compaction"
)

func TestHeuristicTokenCounter_CeilOfCharsOverFour(t *testing.T) {
	text := func(s string) helikon.Item {
		return helikon.Item{Role: helikon.RoleUser, Content: []helikon.ContentPart{helikon.TextPart{Text: s}}}
	}
	for _, tc := range []struct {
		name  string
		items []helikon.Item
		want  int
	}{
		{"nothing", nil, 0},
		{"four chars is one token", []helikon.Item{text("abcd")}, 1},
		{"a fifth char rounds up", []helikon.Item{text("abcde")}, 2},
		{"code points, not bytes", []helikon.Item{text("héllo✓✓✓")}, 2}, // 8 code points, 14 bytes
		{"chars summed across items before rounding", []helikon.Item{text("ab"), text("cd")}, 1},
		{"system summary counts", []helikon.Item{helikon.SystemItem("summary!")}, 2},
		{"reasoning text counts, signatures do not", []helikon.Item{{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.ReasoningPart{Text: "abcd", Signature: "a-long-opaque-signature", Data: "more-opaque-data"},
		}}}, 1},
		{"images count zero", []helikon.Item{{Role: helikon.RoleUser, Content: []helikon.ContentPart{
			helikon.ImagePart{URL: "https://example.com/a-very-long-image-url.png"},
			helikon.ImagePart{MediaType: "image/png", Data: make([]byte, 4096)},
		}}}, 0},
		{"tool use name and compact args", []helikon.Item{{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			// "f" + `{"a":1}` = 8 chars; the spaces sent do not count.
			helikon.ToolUsePart{CallID: "c", Name: "f", Args: json.RawMessage(`{ "a" :  1 }`)},
		}}}, 2},
		{"spaces inside JSON strings count", []helikon.Item{{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			// "x" + `{"q":"a  \"  b"}` = 17 chars; an escaped quote does not end the string.
			helikon.ToolUsePart{CallID: "c", Name: "x", Args: json.RawMessage(`{ "q" : "a  \"  b" }`)},
		}}}, 5},
		{"nested tool result content", []helikon.Item{{Role: helikon.RoleTool, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: "c", Name: "ignored-name", Content: []helikon.ContentPart{
				helikon.TextPart{Text: "abcd"},
				helikon.ToolResultPart{Content: []helikon.ContentPart{helikon.TextPart{Text: "efgh"}}},
			}},
		}}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (compaction.HeuristicTokenCounter{}).Count(tc.items); got != tc.want {
				t.Fatalf("Count = %d, want %d", got, tc.want)
			}
		})
	}
}

func BenchmarkHeuristicTokenCounter_100Items(b *testing.B) {
	items := make([]helikon.Item, 100)
	for i := range items {
		items[i] = helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
			helikon.TextPart{Text: "You spent $412.50 on dining this month, 82% of your budget."},
			helikon.ToolUsePart{CallID: "c", Name: "lookup_spending", Args: json.RawMessage(`{"category":"Dining","month":"2026-03"}`)},
		}}
	}
	b.ReportAllocs()
	for b.Loop() {
		compaction.HeuristicTokenCounter{}.Count(items)
	}
}
