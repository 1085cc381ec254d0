package providertest

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Recording is a response the fake server replays.
type Recording struct {
	Status int
	Header http.Header
	Body   []byte
	// Frames, when set, are the events of a binary framing, one an
	// element; Body is then their concatenation. Unset, the events are the
	// blank-line-separated events of Server-Sent Events.
	Frames [][]byte
	// lineEnd, when set, is what ends the body's lines instead of "\n".
	lineEnd string
}

// events returns the recording's body event by event.
func (r Recording) events() [][]byte {
	if r.Frames != nil {
		return r.Frames
	}
	end := cmp.Or(r.lineEnd, "\n")
	return bytes.SplitAfter(r.Body, []byte(end+end))
}

// contentType is the recording's content type, text/event-stream unless it
// says otherwise.
func (r Recording) contentType() string {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		return ct
	}
	return "text/event-stream"
}

// head is the start of the stream a server that never finishes sends: up
// to and including the first data event of an SSE body, the first half of
// the events of a framed one.
func (r Recording) head() []byte {
	if r.Frames != nil {
		return bytes.Join(r.Frames[:(len(r.Frames)+1)/2], nil)
	}
	body := r.Body
	if i := bytes.Index(body, []byte("\ndata:")); i >= 0 {
		if j := bytes.Index(body[i:], []byte("\n\n")); j >= 0 {
			body = body[:i+j+2]
		}
	}
	return body
}

// Load reads a recording: a ".sse" file is a 200 text/event-stream body, an
// ".http" file a whole HTTP/1.1 response, after its "#" citation lines.
func Load(path string) (Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Recording{}, err
	}
	return parse(path, data)
}

// parse is [Load] for a recording already read.
func parse(path string, data []byte) (Recording, error) {
	if strings.HasSuffix(path, ".sse") {
		return Recording{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: data}, nil
	}
	for bytes.HasPrefix(data, []byte("#")) {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return Recording{}, fmt.Errorf("%s: no response after the citation lines", path)
		}
		data = data[i+1:]
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
	if err != nil {
		return Recording{}, fmt.Errorf("%s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Recording{}, fmt.Errorf("%s: %w", path, err)
	}
	return Recording{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// serve writes the recording, flushing after every event so the client sees
// a stream rather than one buffered body.
func (r Recording) serve(w http.ResponseWriter) {
	for k, v := range r.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(r.Status)
	f, _ := w.(http.Flusher)
	for _, chunk := range r.events() {
		_, _ = w.Write(chunk)
		if f != nil {
			f.Flush()
		}
	}
}

// withLineEnds returns the SSE recording with every line ended by end
// (whatever ended it before), split into the events a server would flush.
func (r Recording) withLineEnds(end string) Recording {
	body := bytes.ReplaceAll(r.Body, []byte("\r\n"), []byte("\n"))
	r.Body = bytes.ReplaceAll(body, []byte("\n"), []byte(end))
	r.Frames, r.lineEnd = nil, end
	return r
}

// truncated returns the recording cut before its terminal event: without
// its final event (SSE), or with the first half of its events (a framed
// recording, whose last events may all follow the terminal one).
func (r Recording) truncated() Recording {
	if len(r.Frames) > 0 {
		r.Frames = r.Frames[:len(r.Frames)/2]
		r.Body = bytes.Join(r.Frames, nil)
		return r
	}
	body := bytes.TrimRight(r.Body, "\n")
	if i := bytes.LastIndex(body, []byte("\n\n")); i >= 0 {
		body = body[:i+2]
	}
	r.Body = body
	return r
}
