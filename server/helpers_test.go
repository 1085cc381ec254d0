package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// repeatModel answers every invocation with the same script, each with a
// fresh scripted mock, so one agent serves any number of runs.
type repeatModel struct {
	script mock.Script
	delay  time.Duration
}

func (m repeatModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return mock.New([]mock.Script{m.script}, mock.WithDelay(m.delay)).Invoke(ctx, req)
}

func (m repeatModel) Capabilities() helikon.ModelCapabilities {
	return mock.New(nil).Capabilities()
}

// newAgent returns an agent that streams parts as deltas, waiting delay
// before each model event.
func newAgent(t testing.TB, name string, delay time.Duration, parts ...string) helikon.Agent {
	t.Helper()
	if len(parts) == 0 {
		parts = []string{"Hello", ", ", "world"}
	}
	a, err := helikon.NewAgent(name, repeatModel{script: mock.Deltas(parts...), delay: delay},
		helikon.WithDescription("says "+strings.Join(parts, "")))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// start serves agents on a loopback httptest server.
func start(t testing.TB, agents []helikon.Agent, opts ...server.Option) (*server.Server, *httptest.Server) {
	t.Helper()
	srv, err := server.New(agents, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		ts.Close()
	})
	return srv, ts
}

func post(t testing.TB, url, body string, header ...string) *http.Response {
	t.Helper()
	return do(t, http.MethodPost, url, body, append([]string{"Content-Type", "application/json"}, header...)...)
}

func get(t testing.TB, url string, header ...string) *http.Response {
	t.Helper()
	return do(t, http.MethodGet, url, "", header...)
}

// do sends a request with header's name/value pairs.
func do(t testing.TB, method, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// decode reads resp's JSON body into a T and closes it.
func decode[T any](t testing.TB, resp *http.Response) T {
	t.Helper()
	defer resp.Body.Close()
	var v T
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("decode %T: %v", v, err)
	}
	return v
}

type frame struct {
	id, event, data string
}

// readFrames parses an SSE body until it ends.
func readFrames(t testing.TB, r io.Reader) []frame {
	t.Helper()
	var out []frame
	for f := range frames(r) {
		out = append(out, f)
	}
	return out
}

func frames(r io.Reader) iter.Seq[frame] {
	return func(yield func(frame) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var f frame
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if f.event != "" || f.data != "" {
					if !yield(f) {
						return
					}
				}
				f = frame{}
			case strings.HasPrefix(line, "id: "):
				f.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				f.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				f.data = line[6:]
			}
		}
	}
}

func types(fs []frame) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.event
	}
	return out
}

// waitFor polls cond until it holds or the (generous) deadline passes; it
// bounds a wait, it does not time anything.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	// A bound on waiting, not a timing check: 1,000 runs cancelled under
	// -race on a loaded 2-core machine took past 20 s (CI on acb896d);
	// the dropping-clients test's runs would only end by themselves
	// after a minute, so 50 s still tells a cancel from a finish.
	deadline := time.Now().Add(50 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitForStatus polls the run's record until its status is want, and
// fails when the run reaches another final status first or the test's
// context ends (its -timeout): it waits for a state, it times nothing.
func waitForStatus(t *testing.T, base, agent, id string, want server.RunStatus) server.RunInfo {
	t.Helper()
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Second)) // to fail before the panic
		defer cancel()
	}
	for {
		info := runInfo(t, base, agent, id)
		switch {
		case info.Status == want:
			return info
		case info.Status.Final():
			t.Fatalf("run %s is %s, want %s: %+v", id, info.Status, want, info)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("run %s is still %s, want %s: %v", id, info.Status, want, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func runInfo(t testing.TB, base, agent, id string) server.RunInfo {
	t.Helper()
	resp := get(t, base+"/agents/"+agent+"/runs/"+id)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET run: %d", resp.StatusCode)
	}
	return decode[server.RunInfo](t, resp)
}
