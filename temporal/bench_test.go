package temporal

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/runner"
)

// turnsModel is a stateless model safe to share between concurrent runs:
// it calls add until the conversation holds tools tool results, then
// answers. tools = 1 is the S1 shape: one tool round, then the answer.
type turnsModel struct{ tools int }

func (turnsModel) Capabilities() helikon.ModelCapabilities {
	return helikon.ModelCapabilities{Tools: true}
}

func (m turnsModel) Invoke(_ context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	results := 0
	for _, it := range req.Messages {
		if it.Role == helikon.RoleTool {
			results++
		}
	}
	script := []helikon.ModelEvent{helikon.ToolCallDelta{CallID: fmt.Sprint("call_", results), Name: "add", ArgsDelta: `{"a":40,"b":2}`}}
	if results >= m.tools {
		script = []helikon.ModelEvent{helikon.TokenDelta{Text: "sum is 42"}}
	}
	script = append(script, helikon.Usage{InputTokens: 10, OutputTokens: 5})
	return func(yield func(helikon.ModelEvent, error) bool) {
		for _, ev := range script {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// bareWorkflow is the baseline of the durable benchmarks: a workflow that
// runs as many no-op activities one after the other as a run of turns
// model turns and tools tool calls has steps, in the order the run has
// them (a model step, then a tool step, each turn but the last), local or
// not as mode runs them, with none of this package's work.
func bareWorkflow(ctx workflow.Context, turns, tools int, mode stepMode) error {
	step := func(local bool) error {
		var f workflow.Future
		if local {
			f = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute}), bareActivity)
		} else {
			f = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute}), bareActivity)
		}
		return f.Get(ctx, nil)
	}
	for i := range turns {
		if err := step(mode != modeActivities); err != nil {
			return err
		}
		if i < tools {
			if err := step(mode == modeLocal); err != nil {
				return err
			}
		}
	}
	return nil
}

func bareActivity(context.Context) error { return nil }

// startBareWorker serves the bare workflow on a fresh task queue.
func startBareWorker(b *testing.B, c client.Client) string {
	queue := fmt.Sprintf("bare-%d", queueSeq.Add(1))
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflow(bareWorkflow)
	w.RegisterActivity(bareActivity)
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.Stop)
	return queue
}

// runBare starts the bare workflow and waits for it; eager asks for eager
// workflow start (the worker and the starter share the client).
func runBare(b *testing.B, c client.Client, queue string, turns, tools int, mode stepMode, eager bool) {
	ctx, cancel := runContext(b)
	defer cancel()
	wr, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: queue, EnableEagerStart: eager}, bareWorkflow, turns, tools, mode)
	if err == nil {
		err = wr.Get(ctx, nil)
	}
	if err != nil {
		b.Error(err) // it may run on a goroutine of its own
	}
}

// runDeadline bounds each run a benchmark makes. Benchmarks run without
// -timeout (testing stops its alarm before them), so a run the dev server
// lost under load waited for ever: a CI run's benchmark step hung for 15
// minutes in Runner.Run, following a workflow update that never came.
const runDeadline = 2 * time.Minute

// runContext is the context of one run: it ends at runDeadline or with tb.
func runContext(tb testing.TB) (context.Context, context.CancelFunc) {
	return context.WithTimeout(tb.Context(), runDeadline)
}

// benchRunner serves ag on a fresh queue with the step mode and returns a
// runner of the queue with opts.
func benchRunner(b *testing.B, c client.Client, ag *helikon.LLMAgent, mode stepMode, opts ...RunnerOption) *Runner {
	r, err := NewRunner(c, startWorker(b, c, append([]WorkerOption{WithAgents(ag)}, mode.options()...)...), opts...)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkDurableTurnOverhead times the same run durably (a worker and a
// runner on the dev server) beside a baseline, in alternating order, and
// reports the time the durable run adds per model turn. The baselines are
// the in-process runner (the runner package) and a bare workflow with as
// many no-op activities as the run has model turns and tool calls, local
// as the mode has them; "inproc-eager" pairs the in-process runner with a
// durable runner that starts runs eagerly ([WithEagerStart]; the worker
// shares its client). A run of n tool rounds has n+1 model turns. The dev
// server's settings come from the environment (see devClient).
func BenchmarkDurableTurnOverhead(b *testing.B) {
	c := devClient(b)
	bare := startBareWorker(b, c)
	for _, tools := range []int{1, 7} {
		turns := tools + 1
		for _, mode := range []stepMode{modeActivities, modeLocalModel, modeLocal} {
			for _, baseline := range []string{"inproc", "bare", "inproc-eager"} {
				b.Run(fmt.Sprintf("turns=%d/mode=%s/baseline=%s", turns, strings.ReplaceAll(string(mode), " ", "-"), baseline), func(b *testing.B) {
					ag := mustAgentTB(b, "calc", turnsModel{tools}, helikon.WithTools(addTool), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: turns + 1}))
					var opts []RunnerOption
					if baseline == "inproc-eager" {
						opts = append(opts, WithEagerStart())
					}
					durable := benchRunner(b, c, ag, mode, opts...)
					run := func(r helikon.Runner) func() {
						return func() {
							ctx, cancel := runContext(b)
							defer cancel()
							res, err := r.Run(ctx, ag, helikon.NewRunContext(helikon.WithSession(helikon.NewMemorySession())), helikon.UserText("what is 40+2?"))
							if err != nil || res.FinalOutput != "sum is 42" {
								b.Fatalf("got %v, %v", res, err)
							}
						}
					}
					base := run(runner.New())
					if baseline == "bare" {
						base = func() { runBare(b, c, bare, turns, tools, mode, false) }
					}
					b.ReportAllocs()
					tBase, tDur := benchpair.Run(b, strings.TrimSuffix(baseline, "-eager"), base, "durable", run(durable))
					b.ReportMetric(float64((tDur-tBase).Nanoseconds())/float64(b.N)/float64(turns)/1e6, "ms-added/turn")
				})
			}
		}
	}
}

// BenchmarkBareEagerStart measures what eager workflow start saves on the
// bare workflow of an 8-turn run: the same workflow started with and
// without EnableEagerStart, paired. [Runner.Run] starts with
// update-with-start, which eager start cannot be combined with.
func BenchmarkBareEagerStart(b *testing.B) {
	c := devClient(b)
	bare := startBareWorker(b, c)
	for _, mode := range []stepMode{modeActivities, modeLocal} {
		b.Run("mode="+strings.ReplaceAll(string(mode), " ", "-"), func(b *testing.B) {
			b.ReportAllocs()
			tBase, tEager := benchpair.Run(b, "plain", func() { runBare(b, c, bare, 8, 7, mode, false) }, "eager", func() { runBare(b, c, bare, 8, 7, mode, true) })
			b.ReportMetric(float64((tBase-tEager).Nanoseconds())/float64(b.N)/1e6, "ms-saved/run")
		})
	}
}

// BenchmarkDurableThroughput runs S1-shaped runs through one worker with 8
// workflows in flight at a time and reports runs per second, beside the
// in-process runner and the bare workflow of as many steps doing the same
// in the same benchmark.
func BenchmarkDurableThroughput(b *testing.B) {
	c := devClient(b)
	bare := startBareWorker(b, c)
	for _, mode := range []stepMode{modeActivities, modeLocalModel, modeLocal} {
		b.Run("mode="+strings.ReplaceAll(string(mode), " ", "-"), func(b *testing.B) {
			ag := mustAgentTB(b, "calc", turnsModel{1}, helikon.WithTools(addTool))
			durable := benchRunner(b, c, ag, mode)
			const inFlight = 8
			rate := func(one func(), runs int) float64 {
				jobs := make(chan struct{})
				var wg sync.WaitGroup
				start := time.Now()
				for range inFlight {
					wg.Go(func() {
						for range jobs {
							one()
						}
					})
				}
				for range runs {
					jobs <- struct{}{}
				}
				close(jobs)
				wg.Wait()
				return float64(runs) / time.Since(start).Seconds()
			}
			run := func(r helikon.Runner) func() {
				return func() {
					ctx, cancel := runContext(b)
					defer cancel()
					res, err := r.Run(ctx, ag, nil, helikon.UserText("what is 40+2?"))
					if err != nil || res.FinalOutput != "sum is 42" {
						b.Errorf("got %v, %v", res, err)
					}
				}
			}
			b.ReportAllocs()
			var durableRate, bareRate, localRate float64
			for b.Loop() {
				durableRate = rate(run(durable), 4*inFlight)
				bareRate = rate(func() { runBare(b, c, bare, 2, 1, mode, false) }, 4*inFlight)
				localRate = rate(run(runner.New()), 4*inFlight)
			}
			b.ReportMetric(durableRate, "runs/s-durable")
			b.ReportMetric(bareRate, "runs/s-bare")
			b.ReportMetric(localRate, "runs/s-inproc")
		})
	}
}

func mustAgentTB(tb testing.TB, name string, m helikon.Model, opts ...helikon.AgentOption) *helikon.LLMAgent {
	tb.Helper()
	a, err := helikon.NewAgent(name, m, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

// bigTool returns a different 50 KB document on every call: words drawn
// from a 2,000-word vocabulary, which compresses about as well as prose,
// not as well as one sentence repeated.
func bigTool() helikon.Tool {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 2000)
	for i := range vocab {
		w := make([]byte, 3+rng.IntN(7))
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		vocab[i] = string(w)
	}
	var mu sync.Mutex
	return helikon.MustTool("add", "Returns a large document.", func(_ *helikon.ToolContext, _ addArgs) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		for b.Len() < 50<<10 {
			b.WriteString(vocab[rng.IntN(len(vocab))])
			b.WriteByte(' ')
		}
		return b.String()[:50<<10], nil
	})
}

// historyBytes returns the encoded size of a workflow's whole history and
// of its largest event.
func historyBytes(tb testing.TB, c client.Client, id string) (total, largest int) {
	tb.Helper()
	ctx, cancel := runContext(tb)
	defer cancel()
	it := c.GetWorkflowHistory(ctx, id, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			tb.Fatal(err)
		}
		n := proto.Size(ev)
		total += n
		largest = max(largest, n)
	}
	return total, largest
}

// BenchmarkDurableHistory20Turns measures the history of a 20-turn run
// whose 19 tool calls each return 50 KB, with and without the compressing
// data converter: the payload budget of docs/durable.md. It fails if the
// run is past Temporal's default limits (a 2 MB payload, a 50 MB history).
func BenchmarkDurableHistory20Turns(b *testing.B) {
	devClient(b)
	for _, compressed := range []bool{false, true} {
		b.Run(fmt.Sprint("compressed=", compressed), func(b *testing.B) {
			opts := client.Options{HostPort: devAddr, Logger: quietLogger()}
			if compressed {
				opts.DataConverter = CompressingDataConverter()
			}
			c, err := client.Dial(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ag := mustAgentTB(b, "big", turnsModel{19}, helikon.WithTools(bigTool()), helikon.WithRunConfig(helikon.RunConfig{MaxTurns: 20}))
			queue := startWorker(b, c, WithAgents(ag))
			var total, largest int
			for b.Loop() {
				id := fmt.Sprintf("history-%v-%d", compressed, queueSeq.Add(1))
				r, err := NewRunner(c, queue, WithWorkflowID(func(string) string { return id }))
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := runContext(b)
				res, err := r.Run(ctx, ag, nil, helikon.UserText("summarise the documents"))
				cancel()
				if err != nil || res.FinalOutput != "sum is 42" {
					b.Fatalf("run: %v %v", res, err)
				}
				total, largest = historyBytes(b, c, id)
			}
			if largest >= 2<<20 || total >= 50<<20 {
				b.Fatalf("the run is past Temporal's limits: history %d bytes, largest event %d bytes", total, largest)
			}
			b.ReportMetric(float64(total)/(1<<20), "MB-history")
			b.ReportMetric(float64(largest)/(1<<20), "MB-largest-event")
		})
	}
}
