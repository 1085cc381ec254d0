package providertest

import (
	"bufio"
	"bytes"
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
	for chunk := range bytes.SplitAfterSeq(r.Body, []byte("\n\n")) {
		_, _ = w.Write(chunk)
		if f != nil {
			f.Flush()
		}
	}
}

// truncated returns the recording without its final event: a stream cut
// before its terminal event.
func (r Recording) truncated() Recording {
	body := bytes.TrimRight(r.Body, "\n")
	if i := bytes.LastIndex(body, []byte("\n\n")); i >= 0 {
		body = body[:i+2]
	}
	r.Body = body
	return r
}
