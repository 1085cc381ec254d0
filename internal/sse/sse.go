// Package sse decodes Server-Sent Events (the text/event-stream format of the
// WHATWG HTML standard) as the model providers and A2A remotes stream them.
//
// The decoder is written for the hot path of a model stream: it reads with
// [bufio.Reader.ReadSlice] and hands out views into its own buffers, so a
// stream of small events decodes without allocating per event.
//
// Every event is bounded: a line or event larger than the decoder's limit
// ends the stream with [ErrEventTooLarge] instead of growing the heap for
// as long as a broken or hostile server keeps sending.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEvent is the limit on one line or event when none is given:
// far above the largest event a model API sends (a Responses
// response.completed event repeats the whole answer, images included), far
// below what would strain a process.
const DefaultMaxEvent = 8 << 20

// ErrEventTooLarge reports a line or event larger than the decoder's
// limit. The stream cannot be resumed after it.
var ErrEventTooLarge = errors.New("sse: event too large")

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
	max  int
	line []byte // scratch for lines longer than the reader's buffer
	data []byte
	typ  []byte
	// started is set after the first line, whose byte-order mark the
	// standard says to drop.
	started bool
	// hasData records that a data line arrived: only such an event is
	// dispatched, and even an empty first data line is joined to the next
	// one with "\n", as the standard says.
	hasData bool
	// skipLF records that the last line ended with a CR: a LF next is the
	// rest of a CR LF, not an empty line.
	skipLF bool
}

// NewDecoder returns a Decoder reading from r that accepts lines and
// events of up to maxEvent bytes (the "data" lines of an event joined);
// maxEvent <= 0 means [DefaultMaxEvent].
func NewDecoder(r io.Reader, maxEvent int) *Decoder {
	if maxEvent <= 0 {
		maxEvent = DefaultMaxEvent
	}
	return &Decoder{r: bufio.NewReaderSize(r, min(64<<10, maxEvent+2)), max: maxEvent}
}

func (d *Decoder) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes", ErrEventTooLarge, d.max)
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
			if len(d.data)+len(value)+1 > d.max {
				return Event{}, d.tooLarge()
			}
			if !d.hasData && d.blankNext() {
				// One data line and then the blank line that dispatches
				// it, nearly every event of a model stream: hand out
				// the line where it lies in the reader's buffer, uncopied.
				// blankNext has not read past it, so it is still valid.
				return Event{Type: d.typ, Data: value}, nil
			}
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

// blankNext reports whether the reader's buffer already holds, next, the
// blank line that ends an event, and if so consumes it. It never reads
// from the stream, so the line last returned stays valid. When it cannot
// tell (nothing buffered yet), it says no and the caller takes the slow
// path.
func (d *Decoder) blankNext() bool {
	b, _ := d.r.Peek(d.r.Buffered()) // what is buffered: no read
	off := 0
	if d.skipLF && len(b) > 0 && b[0] == '\n' {
		off = 1 // the rest of the previous line's CR LF
	}
	if len(b) <= off {
		return false
	}
	switch b[off] {
	case '\n':
		_, _ = d.r.Discard(off + 1)
		d.skipLF = false
	case '\r':
		if len(b) > off+1 && b[off+1] == '\n' {
			_, _ = d.r.Discard(off + 2)
			d.skipLF = false
		} else {
			_, _ = d.r.Discard(off + 1)
			d.skipLF = true
		}
	default:
		return false
	}
	return true
}

// readLine returns the next line without its terminator: CR LF, LF or a
// bare CR, the three the standard allows. A CR that ends the buffered bytes
// ends its line at once (a stream that ends lines with CR alone must not
// wait for a LF that never comes); a LF that turns out to follow it is
// then skipped as the rest of a CR LF. The returned slice is valid until
// the next read. A line longer than the limit fails as soon as the limit
// is passed, before it is read whole.
func (d *Decoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	long := false
	for {
		if d.r.Buffered() == 0 {
			if _, err := d.r.Peek(1); err != nil {
				return nil, err
			}
		}
		buf, _ := d.r.Peek(d.r.Buffered())
		if d.skipLF {
			d.skipLF = false
			if buf[0] == '\n' {
				_, _ = d.r.Discard(1)
				continue
			}
		}
		n, term := lineEnd(buf)
		if term == 0 {
			// No terminator buffered: keep what there is and read on.
			if len(d.line)+len(buf) > d.max+1 {
				return nil, d.tooLarge()
			}
			d.line = append(d.line, buf...)
			_, _ = d.r.Discard(len(buf))
			long = true
			continue
		}
		line := buf[:n]
		if long {
			d.line = append(d.line, line...)
			line = d.line
		}
		if len(line) > d.max+1 {
			return nil, d.tooLarge()
		}
		d.skipLF = term == 1 && buf[n] == '\r'
		_, _ = d.r.Discard(n + term) // the bytes stay where they are until the next read
		if !d.started {
			d.started = true
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		return line, nil
	}
}

// lineEnd returns the length of the first line in buf and of its
// terminator; term is 0 when buf holds no terminator.
func lineEnd(buf []byte) (n, term int) {
	lf := bytes.IndexByte(buf, '\n')
	scan := buf
	if lf >= 0 {
		scan = buf[:lf]
	}
	switch cr := bytes.IndexByte(scan, '\r'); {
	case cr < 0 && lf < 0:
		return 0, 0
	case cr < 0:
		return lf, 1
	case cr == lf-1:
		return cr, 2
	default:
		return cr, 1 // a bare CR
	}
}
