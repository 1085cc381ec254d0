package starlarktool

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
)

const lookupScript = `
SPENDING = {"2026-01": {"groceries": 412, "rent": 1500, "eating out": 186}}

def run(args):
    items = SPENDING[args["month"]]
    total = 0
    for amount in items.values():
        total += amount
    return {"month": args["month"], "total": total}
`

// BenchmarkStarlarkToolCall pairs a warm call of a script tool, which
// runs in a worker process, with the same script called in this process
// as the package did before workers (no memory cap, no kill at the time
// cap): the ratio is what the isolation costs a call.
func BenchmarkStarlarkToolCall(b *testing.B) {
	tool, err := New("lookup", "", map[string]any{"type": "object"}, "lookup.star", lookupScript)
	if err != nil {
		b.Fatal(err)
	}
	local, se := load("lookup.star", lookupScript, tool.lim)
	if se != nil {
		b.Fatal(se)
	}
	args := json.RawMessage(`{"month": "2026-01"}`)
	tc := &helikon.ToolContext{Context: context.Background()}
	want := `{"month":"2026-01","total":2098}`
	b.ReportAllocs()
	benchpair.Run(b, "inprocess", func() {
		if out, se := local.call(tc, string(args), tool.lim); se != nil || out != want {
			b.Fatal(out, se)
		}
	}, "worker", func() {
		if out, err := tool.Call(tc, args); err != nil || string(out.Content) != want {
			b.Fatal(string(out.Content), err)
		}
	})
}

// BenchmarkTimeCapOverrun runs a built-in (sorted of three million
// items) that takes seconds under a 100 ms time cap and reports how long
// past the cap the worker's answer came (overrun-ms): the kill of the
// worker. Each iteration starts and loads a fresh worker untimed. The
// memory cap is raised to 1 GiB: under the default 256 MiB of address
// space a quiet machine builds the list fast enough to reach the memory
// cap before the time cap, and this benchmark is about the time cap.
func BenchmarkTimeCapOverrun(b *testing.B) {
	lim := DefaultLimits()
	lim.Timeout = 100 * time.Millisecond
	lim.MemoryBytes = 1 << 30
	prog := newProgram("sort.star", "def run(args):\n    return len(sorted(list(range(3000000)), reverse = True))\n")
	ctx := context.Background()
	var over, worst time.Duration
	for b.Loop() {
		b.StopTimer()
		w, err := startProcess(ctx, workerSpec{MemoryBytes: lim.MemoryBytes, CPUSeconds: cpuLifetime})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := w.run(ctx, request{Op: "load", Prog: prog.id, File: prog.filename}, []byte(prog.src), lim); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		// The interpreter may see the cap between list and sorted, before
		// the host kills the worker; either way the time cap stops it.
		_, _, err = w.ask(ctx, request{Op: "call", Prog: prog.id, File: prog.filename}, []byte("{}"), lim)
		d := time.Since(t0) - lim.Timeout
		var se *ScriptError
		if !errors.As(err, &se) || se.Limit != LimitTime {
			b.Fatalf("err = %v, want the time cap", err)
		}
		w.kill()
		over += d
		worst = max(worst, d)
	}
	b.ReportMetric(float64(over.Microseconds())/1e3/float64(b.N), "overrun-ms")
	b.ReportMetric(float64(worst.Microseconds())/1e3, "worst-overrun-ms")
}

// BenchmarkScriptVsGoTool calls the same tool (look a month up, sum its
// categories) as a Starlark script and as a Go function tool, in one
// benchmark, and reports the script's cost as a ratio of the Go tool's.
func BenchmarkScriptVsGoTool(b *testing.B) {
	script, err := New("lookup", "", map[string]any{"type": "object"}, "lookup.star", lookupScript)
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
