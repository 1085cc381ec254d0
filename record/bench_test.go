package record_test

import (
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// BenchmarkRecordedRun pairs a two-turn run (a tool call, then a
// twenty-delta answer) on a bare mock model and tool with the same run
// through a Recorder's model and tool decorators, on one machine in one
// loop, and reports the ratio.
func BenchmarkRecordedRun(b *testing.B) {
	deltas := make([]string, 20)
	for i := range deltas {
		deltas[i] = "word "
	}
	scripts := []mock.Script{
		mock.ToolCalls(mock.Call{ID: "c1", Name: "get_weather", Args: `{"city":"Paris","units":"celsius"}`}),
		mock.Deltas(deltas...),
	}
	calls := 0
	tool := weatherTool(&calls)
	runOnce := func(m helikon.Model, t helikon.Tool) {
		a, err := helikon.NewAgent("weather", m, helikon.WithInstructions("Answer weather questions."), helikon.WithTools(t))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := helikon.Collect(a.Run(b.Context(), helikon.Ephemeral(), helikon.UserText("Weather in Paris?"))); err != nil {
			b.Fatal(err)
		}
	}
	bare := func() { runOnce(mock.New(scripts), tool) }
	recorded := func() {
		rec := record.New()
		runOnce(rec.Model(mock.New(scripts)), rec.Tool(tool))
	}
	b.Run("paired", func(b *testing.B) { b.ReportAllocs(); benchpair.Run(b, "bare", bare, "recorded", recorded) })
	// Alone, for each side's allocations.
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bare()
		}
	})
	b.Run("recorded", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			recorded()
		}
	})
}
