package starlarktool_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/starlarktool"
)

// BenchmarkScriptVsGoTool calls the same tool (look a month up, sum its
// categories) as a Starlark script and as a Go function tool, in one
// benchmark, and reports the script's cost as a ratio of the Go tool's.
func BenchmarkScriptVsGoTool(b *testing.B) {
	src := `
SPENDING = {"2026-01": {"groceries": 412, "rent": 1500, "eating out": 186}}

def run(args):
    items = SPENDING[args["month"]]
    total = 0
    for amount in items.values():
        total += amount
    return {"month": args["month"], "total": total}
`
	script, err := starlarktool.New("lookup", "", map[string]any{"type": "object"}, "lookup.star", src)
	if err != nil {
		b.Fatal(err)
	}
	spending := map[string]map[string]int{"2026-01": {"groceries": 412, "rent": 1500, "eating out": 186}}
	type in struct {
		Month string `json:"month"`
	}
	type out struct {
		Month string `json:"month"`
		Total int    `json:"total"`
	}
	goTool := helikon.MustTool("lookup", "", func(_ *helikon.ToolContext, a in) (out, error) {
		total := 0
		for _, v := range spending[a.Month] {
			total += v
		}
		return out{a.Month, total}, nil
	})
	args := json.RawMessage(`{"month": "2026-01"}`)
	tc := &helikon.ToolContext{Context: context.Background()}
	b.ReportAllocs()
	// Each iteration calls both tools, timed apart, so the ratio is taken
	// under the same machine conditions.
	var scriptT, goT time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := script.Call(tc, args); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := goTool.Call(tc, args); err != nil {
			b.Fatal(err)
		}
		scriptT += t1.Sub(t0)
		goT += time.Since(t1)
	}
	b.ReportMetric(float64(scriptT.Nanoseconds())/float64(b.N), "script-ns/op")
	b.ReportMetric(float64(goT.Nanoseconds())/float64(b.N), "go-ns/op")
	b.ReportMetric(float64(scriptT)/float64(goT), "script/go")
}
