package record_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// recordWeather records the weather round trip through the Anthropic
// adapter against its recorded wire and returns the file and the live
// run's events.
func recordWeather(t *testing.T, input string) (string, []string) {
	t.Helper()
	rec := record.New()
	calls := 0
	a, err := helikon.NewAgent("weather", rec.Model(liveModel(t, wireServer(t))),
		helikon.WithInstructions("Answer weather questions."), helikon.WithTools(rec.Tool(weatherTool(&calls))))
	if err != nil {
		t.Fatal(err)
	}
	live, res, err := runEvents(t, a, input)
	if err != nil || calls != 1 {
		t.Fatalf("live run: %v, %d tool calls", err, calls)
	}
	if !strings.Contains(res.FinalOutput, "68 degrees") {
		t.Fatalf("live answer %q", res.FinalOutput)
	}
	path := filepath.Join(t.TempDir(), "weather.json")
	if err := rec.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	return path, live
}

// replayAgent builds the weather agent on a replay of path.
func replayAgent(t *testing.T, path, instructions string, tool helikon.Tool, opts ...record.ReplayOption) (helikon.Agent, *record.Replay) {
	t.Helper()
	f, err := mock.LoadScriptFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := record.NewReplay(f, opts...)
	if err != nil {
		t.Fatal(err)
	}
	a, err := helikon.NewAgent("weather", rp.Model(), helikon.WithInstructions(instructions), helikon.WithTools(rp.Tool(tool)))
	if err != nil {
		t.Fatal(err)
	}
	return a, rp
}

// TestRecord_AProviderRunReplaysWithIdenticalEventsAndNoToolRun records a
// run of the Anthropic adapter on its recorded wire and replays it: the
// same deltas, tool call and output, and the side-effecting tool does not
// run again.
func TestRecord_AProviderRunReplaysWithIdenticalEventsAndNoToolRun(t *testing.T) {
	path, live := recordWeather(t, "Weather in SF in fahrenheit?")
	calls := 0
	a, rp := replayAgent(t, path, "Answer weather questions.", weatherTool(&calls))
	replayed, _, err := runEvents(t, a, "Weather in SF in fahrenheit?")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(live, replayed) {
		t.Errorf("live:\n%q\nreplayed:\n%q", live, replayed)
	}
	if calls != 0 {
		t.Errorf("the tool ran %d times on replay", calls)
	}
	if err := rp.Check(); err != nil {
		t.Error(err)
	}
	f, _ := mock.LoadScriptFile(path)
	if f.Version != 2 || len(f.Default) != 2 || f.Default[0].Request == nil || len(f.Default[0].Gaps) != len(f.Default[0].Events) {
		t.Errorf("recording: %+v", f)
	}
	usage := f.Default[1].Events[len(f.Default[1].Events)-1]
	if fin, ok := usage.(helikon.Finish); !ok || fin.Reason != helikon.FinishStop {
		t.Errorf("last event of the answer %#v", usage)
	}
}

// TestRecord_SecretsNeverWritten: the key the provider sends in its
// header, a key in the tool's output and a header-style secret in the
// question are absent from the file.
func TestRecord_SecretsNeverWritten(t *testing.T) {
	path, _ := recordWeather(t, "Weather in SF in fahrenheit? Authorization: Bearer tok-live-51c0ffee77aa")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fakeKey, "tok-live-51c0ffee77aa"} {
		if strings.Contains(string(data), s) {
			t.Errorf("the recording holds %q:\n%s", s, data)
		}
	}
	if !strings.Contains(string(data), "***") {
		t.Errorf("nothing was redacted:\n%s", data)
	}
}

// TestReplay_DriftIsDescribed changes one thing at a time and checks the
// strict replay fails the run naming it.
func TestReplay_DriftIsDescribed(t *testing.T) {
	path, _ := recordWeather(t, "Weather in SF in fahrenheit?")
	type kelvinIn struct {
		City  string `json:"city"`
		Units string `json:"units,omitempty" jsonschema:"celsius, fahrenheit or kelvin"`
	}
	kelvin := helikon.MustTool("get_weather", "Get weather", func(tc *helikon.ToolContext, in kelvinIn) (string, error) { return "", nil })
	renamed := helikon.MustTool("get_weather", "Get the weather now", func(tc *helikon.ToolContext, in weatherIn) (string, error) { return "", nil })
	calls := 0
	for _, tc := range []struct {
		name, instructions, input string
		tool                      helikon.Tool
		opts                      []helikon.AgentOption
		want                      []string
	}{
		{"instructions", "Answer in French.", "Weather in SF in fahrenheit?", weatherTool(&calls), nil,
			[]string{"call 1 of 2", "instructions:", `recorded: "Answer weather questions."`, `now:      "Answer in French."`}},
		{"tool schema", "Answer weather questions.", "Weather in SF in fahrenheit?", kelvin, nil,
			[]string{"tool get_weather schema at properties.units.description", `recorded: "celsius or fahrenheit"`, `now:      "celsius, fahrenheit or kelvin"`}},
		{"tool description", "Answer weather questions.", "Weather in SF in fahrenheit?", renamed, nil,
			[]string{"tool get_weather description:", `now:      "Get the weather now"`}},
		{"message", "Answer weather questions.", "Weather in LA in fahrenheit?", weatherTool(&calls), nil,
			[]string{"message 1 (user) at content[0].text", "Weather in SF", "Weather in LA"}},
		{"setting", "Answer weather questions.", "Weather in SF in fahrenheit?", weatherTool(&calls),
			[]helikon.AgentOption{helikon.WithSettings(helikon.ModelSettings{Temperature: new(0.7)})},
			[]string{"setting temperature:", "recorded: absent", "now:      0.7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := mock.LoadScriptFile(path)
			rp, _ := record.NewReplay(f)
			a, err := helikon.NewAgent("weather", rp.Model(), append([]helikon.AgentOption{helikon.WithInstructions(tc.instructions), helikon.WithTools(rp.Tool(tc.tool))}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = runEvents(t, a, tc.input)
			var d *record.DriftError
			if !errors.As(err, &d) {
				t.Fatalf("run error %v, want a drift", err)
			}
			msg := d.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("drift report lacks %q:\n%s", w, msg)
				}
			}
			if rp.Check() == nil {
				t.Error("Check reports no drift")
			}
		})
	}
}

// TestReplay_LenientChecksOnlyTheTurnCount: changed instructions pass,
// a run that stops short is reported.
func TestReplay_LenientChecksOnlyTheTurnCount(t *testing.T) {
	path, _ := recordWeather(t, "Weather in SF in fahrenheit?")
	calls := 0
	a, rp := replayAgent(t, path, "Answer in French.", weatherTool(&calls), record.Lenient())
	if _, _, err := runEvents(t, a, "Weather in SF in fahrenheit?"); err != nil {
		t.Fatal(err)
	}
	if err := rp.Check(); err != nil {
		t.Error(err)
	}
	f, _ := mock.LoadScriptFile(path)
	f.Default = append(f.Default, mock.Text("one more"))
	rp, _ = record.NewReplay(f, record.Lenient())
	a, _ = helikon.NewAgent("weather", rp.Model(), helikon.WithTools(rp.Tool(weatherTool(&calls))))
	runEvents(t, a, "Weather in SF in fahrenheit?")
	if err := rp.Check(); err == nil || !strings.Contains(err.Error(), "the run made 2 model calls; the recording has 3") {
		t.Errorf("Check: %v", err)
	}
}

// TestReplay_RecordedTimingWaitsTheGaps: at once by default, the recorded
// gaps on request.
func TestReplay_RecordedTimingWaitsTheGaps(t *testing.T) {
	f := &mock.ScriptFile{Default: []mock.Script{{
		Events: []helikon.ModelEvent{helikon.TokenDelta{Text: "a"}, helikon.TokenDelta{Text: "b"}, helikon.Finish{Reason: helikon.FinishStop}},
		Gaps:   []time.Duration{0, 30 * time.Millisecond, 30 * time.Millisecond},
	}}}
	for _, tc := range []struct {
		opts []record.ReplayOption
		slow bool
	}{{nil, false}, {[]record.ReplayOption{record.WithRecordedTiming()}, true}} {
		rp, _ := record.NewReplay(f, tc.opts...)
		start := time.Now()
		for _, err := range rp.Model().Invoke(t.Context(), &helikon.ModelRequest{}) {
			if err != nil {
				t.Fatal(err)
			}
		}
		// Only a lower bound: a wait cannot end early, however loaded the
		// machine.
		if took := time.Since(start); tc.slow && took < 60*time.Millisecond {
			t.Errorf("recorded timing took %v, want at least 60ms", took)
		}
	}
}

// TestRecord_ConcurrentRunsAreSafe records many runs at once on one
// recorder, each under its own case, and checks each case holds its own
// two calls.
func TestRecord_ConcurrentRunsAreSafe(t *testing.T) {
	rec := record.New()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			calls := 0
			id := string(rune('a' + i))
			m := mock.Scripted(mock.ToolCalls(mock.Call{ID: "c" + id, Name: "get_weather", Args: `{"city":"Paris"}`}), mock.Text("sunny "+id))
			a, err := helikon.NewAgent("weather", rec.CaseModel(id, m), helikon.WithTools(rec.CaseTool(id, weatherTool(&calls))))
			if err != nil {
				errs <- err
				return
			}
			_, err = helikon.Collect(a.Run(t.Context(), helikon.Ephemeral(), helikon.UserText("q")))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f := rec.ScriptFile()
	for i := range 8 {
		id := string(rune('a' + i))
		s := f.Cases[id]
		if len(s) != 2 || s[1].Events[0].(helikon.TokenDelta).Text != "sunny "+id || len(f.CaseTools[id]) != 1 || f.CaseTools[id][0].CallID != "c"+id {
			t.Errorf("case %s: %+v %+v", id, s, f.CaseTools[id])
		}
	}
}

// shellTool is a shell tool as governance sees one.
type shellTool struct{ helikon.Tool }

func (shellTool) ShellCommand(args json.RawMessage) (string, error) { return "rm -rf /", nil }

// TestRecord_WrappedToolsKeepTheirKind: recording or replaying a shell
// tool leaves it under the shell rules, which read its command line.
func TestRecord_WrappedToolsKeepTheirKind(t *testing.T) {
	calls := 0
	sh := shellTool{weatherTool(&calls)}
	rp, _ := record.NewReplay(&mock.ScriptFile{})
	for name, w := range map[string]helikon.Tool{"recorded": record.New().Tool(sh), "replayed": rp.Tool(sh)} {
		st, ok := w.(governance.ShellTool)
		if !ok {
			t.Errorf("%s: the wrapper hides the shell tool", name)
			continue
		}
		if cmd, _ := st.ShellCommand(nil); cmd != "rm -rf /" {
			t.Errorf("%s: command %q", name, cmd)
		}
	}
}
