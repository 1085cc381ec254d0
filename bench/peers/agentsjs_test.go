package peers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The same scenarios on the OpenAI Agents SDK for JS (@openai/agents-core,
// pinned in js/package-lock.json): js/scenarios.mjs runs them in a node
// process with a scripted in-process model and times each run itself, so
// the figures hold no pipe time. Install it once with `npm ci` in js/.

// agentsJSDir holds scenarios.mjs and, after `npm ci`, the SDK.
var agentsJSDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "js")
}()

// A scenario is warmed up in node before it is first timed, so that V8
// has compiled the SDK's hot paths: the first runs of a fresh process are
// several times slower than later ones (S1 about 10× over its first 1,000
// runs, measured). It runs in batches until jsWarmupRuns runs or
// jsWarmupTime, whichever comes first; each later -count round re-primes
// the scenario with one batch.
const (
	jsWarmupBatch = 25
	jsWarmupRuns  = 2000
	jsWarmupTime  = 3 * time.Second
)

// requireAgentsJS skips tb, saying how to install what is missing, when
// node or the SDK is not there. It does not fail under CI: .ci/run does
// not install this module's peers, since it runs no benchmark of them.
func requireAgentsJS(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("node is not installed: apt-get install nodejs npm")
	}
	if _, err := os.Stat(filepath.Join(agentsJSDir, "node_modules", "@openai", "agents-core", "package.json")); err != nil {
		tb.Skip("the OpenAI Agents SDK for JS is not installed: run `npm ci` in " + agentsJSDir)
	}
}

// agentsJS is a node process running scenarios.mjs -serve: each request
// "S<k> <n>\n" runs that scenario n times and is answered with the
// nanoseconds the runs took, timed inside node.
type agentsJS struct {
	cmd    *exec.Cmd
	cancel context.CancelFunc
	in     io.WriteCloser
	out    *bufio.Reader
	stderr lockedBuffer
	warmed map[string]bool // scenarios warmed up, by name
}

// lockedBuffer is node's standard error: exec copies into it while a
// failing request reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func startAgentsJS() (*agentsJS, error) {
	ctx, cancel := context.WithCancel(context.Background())
	j := &agentsJS{cancel: cancel, warmed: map[string]bool{}}
	j.cmd = exec.CommandContext(ctx, "node", "scenarios.mjs", "-serve")
	j.cmd.Dir = agentsJSDir
	j.cmd.Stderr = &j.stderr
	in, err := j.cmd.StdinPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	out, err := j.cmd.StdoutPipe()
	if err != nil {
		cancel()
		return nil, err
	}
	if err := j.cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("start node: %w", err)
	}
	j.in, j.out = in, bufio.NewReader(out)
	return j, nil
}

// run asks node for n runs of scenario and returns the time they took.
func (j *agentsJS) run(scenario string, n int) (time.Duration, error) {
	if _, err := fmt.Fprintf(j.in, "%s %d\n", scenario, n); err != nil {
		return 0, fmt.Errorf("agentsjs %s: write: %w", scenario, err)
	}
	line, err := j.out.ReadSlice('\n')
	if err != nil {
		return 0, fmt.Errorf("agentsjs %s: read: %w (node stderr: %s)", scenario, err, j.stderr.String())
	}
	line = bytes.TrimSpace(line)
	ns, err := strconv.ParseInt(string(line), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("agentsjs %s: %s", scenario, line)
	}
	return time.Duration(ns), nil
}

// close ends the process: node leaves when its standard input closes; one
// that has not left after 10 s is killed.
func (j *agentsJS) close() error {
	j.in.Close()
	kill := time.AfterFunc(10*time.Second, j.cancel)
	defer kill.Stop()
	err := j.cmd.Wait()
	j.cancel()
	return err
}

// agentsJSProc is the one node process of this test binary, started by the
// first benchmark that needs it and ended by TestMain, so that V8's
// compiled code carries over from one -count round to the next.
var agentsJSProc struct {
	once sync.Once
	j    *agentsJS
	err  error
}

func sharedAgentsJS(b *testing.B) *agentsJS {
	requireAgentsJS(b)
	agentsJSProc.once.Do(func() { agentsJSProc.j, agentsJSProc.err = startAgentsJS() })
	if agentsJSProc.err != nil {
		b.Fatal(agentsJSProc.err)
	}
	return agentsJSProc.j
}

func TestMain(m *testing.M) {
	code := m.Run()
	if j := agentsJSProc.j; j != nil {
		if err := j.close(); err != nil && code == 0 {
			fmt.Fprintf(os.Stderr, "agentsjs: node: %v\n%s", err, j.stderr.String())
			code = 1
		}
	}
	os.Exit(code)
}

// warmUp runs scenario in node until it is warm (see jsWarmupRuns), or
// one batch if it was warmed up before, and returns the time a run took
// in the last batch.
func (j *agentsJS) warmUp(scenario string) (time.Duration, error) {
	runs := jsWarmupRuns
	if j.warmed[scenario] {
		runs = jsWarmupBatch
	}
	var spent, last time.Duration
	for done := 0; done < runs && spent < jsWarmupTime; done += jsWarmupBatch {
		d, err := j.run(scenario, jsWarmupBatch)
		if err != nil {
			return 0, err
		}
		spent, last = spent+d, d/jsWarmupBatch
	}
	j.warmed[scenario] = true
	return last, nil
}

// blockTime is how long each side runs in one round of
// BenchmarkScenariosVsAgentsJS: long enough that a side's runs are timed
// warm, not just after the other process had the CPU and its caches.
const blockTime = 20 * time.Millisecond

// runsPerBlock is how many runs of perRun each fill about one blockTime.
func runsPerBlock(perRun time.Duration) int {
	return max(1, int(blockTime/max(perRun, 1)))
}

// BenchmarkScenariosVsAgentsJS runs each scenario on Helikon here and on
// the OpenAI Agents SDK for JS in a node process, in rounds: one iteration
// is a block of Helikon's runs and a block of the SDK's, each about
// blockTime long, alternating which goes first. Node times its own block,
// so no pipe time is counted. It reports ns-helikon/op and
// ns-agentsjs/op (over all rounds) and x-agentsjs: the median over the
// rounds of Helikon's time a run over the SDK's, so 0.1 means Helikon is
// 10× faster. The benchmark's own ns/op is a round's wall time: read the
// metrics.
func BenchmarkScenariosVsAgentsJS(b *testing.B) {
	js := sharedAgentsJS(b)
	for _, sc := range helikonScenarios(b, context.Background()) {
		b.Run(sc.name, func(b *testing.B) {
			jsRun, err := js.warmUp(sc.name)
			if err != nil {
				b.Fatal(err)
			}
			nJS := runsPerBlock(jsRun)
			nHelikon := 0
			t0 := time.Now()
			for ; time.Since(t0) < blockTime; nHelikon++ {
				sc.helikon()
			}
			var tHelikon, tJS time.Duration
			var ratios []float64
			helikonBlock := func() time.Duration {
				t0 := time.Now()
				for range nHelikon {
					sc.helikon()
				}
				return time.Since(t0)
			}
			odd := false
			for b.Loop() {
				var h, j time.Duration
				if odd {
					j, err = js.run(sc.name, nJS)
					h = helikonBlock()
				} else {
					h = helikonBlock()
					j, err = js.run(sc.name, nJS)
				}
				if err != nil {
					b.Fatal(err)
				}
				tHelikon, tJS = tHelikon+h, tJS+j
				ratios = append(ratios, (float64(h)/float64(nHelikon))/(float64(j)/float64(nJS)))
				odd = !odd
			}
			slices.Sort(ratios)
			b.ReportMetric(float64(tHelikon.Nanoseconds())/float64(b.N*nHelikon), "ns-helikon/op")
			b.ReportMetric(float64(tJS.Nanoseconds())/float64(b.N*nJS), "ns-agentsjs/op")
			b.ReportMetric(ratios[len(ratios)/2], "x-agentsjs")
		})
	}
}

// TestAgentsJS_ScenariosRunAsDefined runs js/scenarios.mjs -check: each
// scenario once on the SDK, with the results the Go side checks on
// Helikon's (the answer, every scripted tool call run, 1,000 deltas
// streamed, the three parallel answers).
func TestAgentsJS_ScenariosRunAsDefined(t *testing.T) {
	requireAgentsJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "scenarios.mjs", "-check")
	cmd.Dir = agentsJSDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node scenarios.mjs -check: %v\n%s", err, stderr.String())
	}
	var got struct {
		S1, S2 struct {
			FinalOutput string `json:"finalOutput"`
			ToolCalls   int    `json:"toolCalls"`
		}
		S3 struct {
			Deltas            int `json:"deltas"`
			FinalOutputLength int `json:"finalOutputLength"`
		}
		S4 struct {
			FinalOutput string `json:"finalOutput"`
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"S1 answer", got.S1.FinalOutput, "sum is 42"},
		{"S1 tool calls", got.S1.ToolCalls, 1},
		{"S2 answer", got.S2.FinalOutput, "done"},
		{"S2 tool calls", got.S2.ToolCalls, 40},
		{"S3 deltas", got.S3.Deltas, 1000},
		{"S3 answer length", got.S3.FinalOutputLength, 4000},
		{"S4 answer", got.S4.FinalOutput, `{"a":"a","b":"b","c":"c"}`},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestAgentsJS_ServeAnswersAnUnknownScenarioWithAnError pins the serve
// protocol's failure path: a bad request is an error line, not a hang or
// a figure, and the process still answers the next request.
func TestAgentsJS_ServeAnswersAnUnknownScenarioWithAnError(t *testing.T) {
	requireAgentsJS(t)
	j, err := startAgentsJS()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := j.close(); err != nil {
			t.Errorf("node: %v\n%s", err, j.stderr.String())
		}
	}()
	for _, c := range []struct {
		req     string
		n       int
		wantErr bool
	}{
		{"S9", 1, true},
		{"S1", 0, true},
		{"S1", 1, false}, // the process still answers after bad requests
	} {
		d, err := j.run(c.req, c.n)
		if (err != nil) != c.wantErr {
			t.Errorf("%s %d: %v, %v; want an error: %v", c.req, c.n, d, err, c.wantErr)
		}
		if err == nil && d <= 0 {
			t.Errorf("%s %d: %v, want a positive time", c.req, c.n, d)
		}
	}
}
