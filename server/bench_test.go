package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// countFrames reads an SSE body to its end and counts its frames.
func countFrames(b *testing.B, resp *http.Response) int {
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	n := 0
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			n++
		}
	}
	return n
}

// bareSSE is the baseline: a plain net/http handler that runs the agent
// in the request and writes each event as the same SSE frame, flushing
// each, with no event log, no run registry and no replay.
func bareSSE(agent helikon.Agent) http.HandlerFunc {
	r := runner.New()
	return func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		var buf []byte
		seq := 0
		for ev := range r.RunStreamed(req.Context(), agent, helikon.Ephemeral(), helikon.UserText("hi")) {
			data, _ := json.Marshal(ev)
			seq++
			buf = append(buf[:0], "id: "...)
			buf = strconv.AppendInt(buf, int64(seq), 10)
			// Every event's JSON opens with {"type":"…": the same
			// event: line as the server's, without a lookup.
			typ := data[9 : 9+bytes.IndexByte(data[9:], '"')]
			buf = append(append(buf, "\nevent: "...), typ...)
			buf = append(buf, "\ndata: "...)
			buf = append(append(buf, data...), "\n\n"...)
			if _, err := w.Write(buf); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
	}
}

// BenchmarkSSEServerVsBare streams one run of 200 token deltas, and the
// run's other events, through the server's SSE route and through the bare
// handler within every iteration, swapping their order each time, and
// reports the server's end-to-end event throughput as a fraction of the
// bare one's (x-bare; the goal is at least 0.65).
func BenchmarkSSEServerVsBare(b *testing.B) {
	parts := strings.Split(strings.Repeat("tok ", 200), " ")[:200]
	agent := newAgent(b, "streamer", 0, parts...)
	_, srv := start(b, []helikon.Agent{agent})
	bare := httptest.NewServer(bareSSE(agent))
	defer bare.Close()
	client := &http.Client{}
	viaServer := func() int {
		resp, err := client.Post(srv.URL+"/agents/streamer/runs?stream=sse", "application/json", strings.NewReader(`{"input":"hi"}`))
		if err != nil {
			b.Fatal(err)
		}
		return countFrames(b, resp)
	}
	viaBare := func() int {
		resp, err := client.Get(bare.URL)
		if err != nil {
			b.Fatal(err)
		}
		return countFrames(b, resp)
	}
	// The frames of one run, counted once untimed: the deltas and however
	// many other events a run streams.
	perRun := viaBare()
	var tServer, tBare time.Duration
	var nServer, nBare int
	odd := false
	b.ReportAllocs()
	for b.Loop() {
		first, second := viaServer, viaBare
		if odd {
			first, second = viaBare, viaServer
		}
		t0 := time.Now()
		n1 := first()
		t1 := time.Now()
		n2 := second()
		t2 := time.Now()
		if odd {
			tBare, tServer = tBare+t1.Sub(t0), tServer+t2.Sub(t1)
			nBare, nServer = nBare+n1, nServer+n2
		} else {
			tServer, tBare = tServer+t1.Sub(t0), tBare+t2.Sub(t1)
			nServer, nBare = nServer+n1, nBare+n2
		}
		odd = !odd
	}
	if perRun < 200 || nServer != nBare || nServer != perRun*b.N {
		b.Fatalf("frames: server %d, bare %d, want %d each (%d a run, 200 of them deltas)", nServer, nBare, perRun*b.N, perRun)
	}
	evServer := float64(nServer) / tServer.Seconds()
	evBare := float64(nBare) / tBare.Seconds()
	b.ReportMetric(evServer, "events/s-server")
	b.ReportMetric(evBare, "events/s-bare")
	b.ReportMetric(evServer/evBare, "x-bare")
}

// bareOneShot is the one-shot baseline: a plain handler that runs the
// agent through the runner and writes its final output as JSON.
func bareOneShot(agent helikon.Agent) http.HandlerFunc {
	r := runner.New()
	return func(w http.ResponseWriter, req *http.Request) {
		res, err := r.Run(req.Context(), agent, helikon.Ephemeral(), helikon.UserText("hi"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"final_output": res.FinalOutput})
	}
}

// ttfb posts body to url and returns the time to the response's first
// byte.
func ttfb(b *testing.B, client *http.Client, url string, body []byte) time.Duration {
	var first time.Time
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { first = time.Now() },
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatal(resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return first.Sub(t0)
}

// BenchmarkOneShotTTFB times, within every iteration, the same agent's
// run three ways: through the runner in process (ns-agent), to the first
// byte of a plain net/http handler that runs it (ns-bare-ttfb), and to
// the first byte of the server's one-shot route (ns-ttfb). ns-overhead is
// what the server adds to the agent's own run time (goal: under 200 µs),
// HTTP round trip included; x-bare compares the server's first byte with
// the plain handler's.
func BenchmarkOneShotTTFB(b *testing.B) {
	agent := newAgent(b, "greeter", 0)
	_, srv := start(b, []helikon.Agent{agent})
	bare := httptest.NewServer(bareOneShot(agent))
	defer bare.Close()
	client := &http.Client{}
	r := runner.New()
	body := []byte(`{"input":"hi"}`)
	var tRun, tBare, tServer time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Run(context.Background(), agent, helikon.Ephemeral(), helikon.UserText("hi")); err != nil {
			b.Fatal(err)
		}
		tRun += time.Since(t0)
		tBare += ttfb(b, client, bare.URL, body)
		tServer += ttfb(b, client, srv.URL+"/agents/greeter/runs", body)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tRun.Nanoseconds())/n, "ns-agent/op")
	b.ReportMetric(float64(tBare.Nanoseconds())/n, "ns-bare-ttfb/op")
	b.ReportMetric(float64(tServer.Nanoseconds())/n, "ns-ttfb/op")
	b.ReportMetric(float64((tServer-tRun).Nanoseconds())/n, "ns-overhead/op")
	b.ReportMetric(float64(tServer)/float64(tBare), "x-bare")
}
