package providertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
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
type MemoryTransport struct{ Body []byte }

// RoundTrip implements [http.RoundTripper].
func (m MemoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(m.Body)), // no copy: the benchmark measures the adapter
		Request:    req,
	}, nil
}
