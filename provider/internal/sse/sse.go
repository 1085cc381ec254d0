// Package sse decodes Server-Sent Events (the text/event-stream format of the
// WHATWG HTML standard) as the model providers stream them.
//
// The decoder is written for the hot path of a model stream: it reads with
// [bufio.Reader.ReadSlice] and hands out views into its own buffers, so a
// stream of small events decodes without allocating per event.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched event. Type is the "event" field (empty when the
// stream names none) and Data the "data" lines joined with "\n". Both slices
// are valid only until the next call to [Decoder.Next].
type Event struct {
	Type []byte
	Data []byte
}

// Decoder reads events from a stream.
type Decoder struct {
	r    *bufio.Reader
	line []byte // scratch for lines longer than the reader's buffer
	data []byte
	typ  []byte
	// hasData records that a data line arrived: only such an event is
	// dispatched, and even an empty first data line is joined to the next
	// one with "\n", as the standard says.
	hasData bool
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a final event that was not terminated by a blank line is discarded, as the
// standard requires, because a stream cut mid-event did not deliver it.
func (d *Decoder) Next() (Event, error) {
	d.data = d.data[:0]
	d.typ = d.typ[:0]
	d.hasData = false
	for {
		line, err := d.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !d.hasData {
				// No data line: the standard drops the event, type and all.
				d.typ = d.typ[:0]
				continue
			}
			return Event{Type: d.typ, Data: d.data}, nil
		}
		if line[0] == ':' {
			continue // comment, often a keep-alive
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(name) {
		case "data":
			if d.hasData {
				d.data = append(d.data, '\n')
			}
			d.data = append(d.data, value...)
			d.hasData = true
		case "event":
			d.typ = append(d.typ[:0], value...)
		}
		// "id", "retry" and unknown fields carry nothing a model stream needs.
	}
}

// readLine returns the next line without its terminator (\n, \r\n or \r
// before \n). The returned slice is valid until the next read.
func (d *Decoder) readLine() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		d.line = append(d.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = d.r.ReadSlice('\n')
			d.line = append(d.line, line...)
		}
		line = d.line
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}
