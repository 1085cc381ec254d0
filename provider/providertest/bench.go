package providertest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Stream1000 builds a stream of n copies of the recording's first event
// whose data contains marker (a content delta), between the events before
// it and the events after the last such delta: a long stream made only of
// recorded events.
func Stream1000(rec Recording, marker string, n int) ([]byte, error) {
	events := bytes.SplitAfter(rec.Body, []byte("\n\n"))
	first, last := -1, -1
	for i, ev := range events {
		if bytes.Contains(ev, []byte(marker)) {
			if first < 0 {
				first = i
			}
			last = i
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
	for _, ev := range events[last+1:] {
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
		Body:       io.NopCloser(strings.NewReader(string(m.Body))),
		Request:    req,
	}, nil
}
