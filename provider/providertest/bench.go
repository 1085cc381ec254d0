package providertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"testing"

	"github.com/paigasus/helikon"
)

// RepeatEvent returns the recording's body with its first event whose
// data contains marker (a content delta) repeated n times in place: a long
// stream, for benchmarks, made only of recorded events.
func RepeatEvent(rec Recording, marker string, n int) ([]byte, error) {
	events := bytes.SplitAfter(rec.Body, []byte("\n\n"))
	first := -1
	for i, ev := range events {
		if bytes.Contains(ev, []byte(marker)) {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, fmt.Errorf("providertest: no event contains %q", marker)
	}
	var b bytes.Buffer
	for _, ev := range events[:first] {
		b.Write(ev)
	}
	for range n {
		b.Write(events[first])
	}
	for _, ev := range events[first+1:] {
		b.Write(ev)
	}
	return b.Bytes(), nil
}

// MemoryTransport answers every request with Body from memory, so a
// benchmark measures the adapter, not the network.
type MemoryTransport struct {
	Body []byte
	// ContentType is the response's content type (default
	// text/event-stream).
	ContentType string
}

// RoundTrip implements [http.RoundTripper].
func (m MemoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	ct := m.ContentType
	if ct == "" {
		ct = "text/event-stream"
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {ct}},
		Body:       io.NopCloser(bytes.NewReader(m.Body)), // no copy: the benchmark measures the adapter
		Request:    req,
	}, nil
}

// BenchStream measures m replaying one stream of at least 1,000 text deltas
// per iteration (body is what m's transport serves, for the bytes/s
// figure). It reports deltas/op, ns/delta, allocs/delta and cpu-ns/op (the
// process's CPU time per iteration, GC included: on a shared machine wall
// time counts the waits for a core, CPU time does not) beside the usual
// figures, and fails if an iteration sees a different number of deltas
// than the first.
func BenchStream(b *testing.B, m helikon.Model, bodyLen int) {
	b.Helper()
	req := &helikon.ModelRequest{Messages: helikon.UserText("hello")}
	b.SetBytes(int64(bodyLen))
	want := CountDeltas(b, m, req)
	if want < 1000 {
		b.Fatalf("only %d deltas", want)
	}
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		if n := CountDeltas(b, m, req); n != want {
			b.Fatalf("%d deltas, want %d", n, want)
		}
	}
	cpu1, _ := processCPU()
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(want), "deltas/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*want), "ns/delta")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(b.N*want), "allocs/delta")
	if cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// CountDeltas replays m's stream for req once and counts its text deltas,
// failing b on an error.
func CountDeltas(b *testing.B, m helikon.Model, req *helikon.ModelRequest) int {
	n := 0
	for ev, err := range m.Invoke(b.Context(), req) {
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := ev.(helikon.TokenDelta); ok {
			n++
		}
	}
	return n
}
