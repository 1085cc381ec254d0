package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type ev struct{ typ, data string }

func decodeAll(t *testing.T, r io.Reader) ([]ev, error) {
	t.Helper()
	return decodeAllLimit(t, r, 0)
}

func TestDecoder_FramesEventsAsTheStandardSays(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"data only", "data: {\"a\":1}\n\n", []ev{{"", `{"a":1}`}}},
		{"event and data", "event: message_start\ndata: {}\n\n", []ev{{"message_start", "{}"}}},
		{"crlf line ends", "event: x\r\ndata: y\r\n\r\n", []ev{{"x", "y"}}},
		{"multi-line data joined with newline", "data: a\ndata: b\n\n", []ev{{"", "a\nb"}}},
		{"empty first data line still joins", "data:\ndata: b\n\n", []ev{{"", "\nb"}}},
		{"no space after colon", "data:x\n\n", []ev{{"", "x"}}},
		{"comments and keep-alives skipped", ": ping\n\ndata: x\n\n", []ev{{"", "x"}}},
		{"leading byte-order mark dropped", "\xef\xbb\xbfdata: x\n\n", []ev{{"", "x"}}},
		{"unknown fields ignored", "...\nid: 7\nretry: 10\ndata: x\n\n", []ev{{"", "x"}}},
		{"extra blank lines between events", "data: a\n\n\n\ndata: b\n\n", []ev{{"", "a"}, {"", "b"}}},
		{"unterminated final event discarded", "data: a\n\ndata: b\n", []ev{{"", "a"}}},
		{"event type does not leak into next event", "event: e\ndata: a\n\ndata: b\n\n", []ev{{"e", "a"}, {"", "b"}}},
		{"event without data is not dispatched", "event: ping\n\ndata: b\n\n", []ev{{"", "b"}}},
		{"empty data line is dispatched", "data:\n\n", []ev{{"", ""}}},
		{"data line and blank line ending in cr lf", "data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n", []ev{{"", "a"}, {"", "b\nc"}}},
		{"bare cr line ends", "event: x\rdata: y\r\rdata: z\r\r", []ev{{"x", "y"}, {"", "z"}}},
		{"bare cr multi-line data", "data: a\rdata: b\r\r", []ev{{"", "a\nb"}}},
		{"cr then lf is one line end, not two", "data: a\r\ndata: b\r\n\r\n", []ev{{"", "a\nb"}}},
		{"lf after a bare-cr blank line is another blank line", "data: a\r\r\ndata: b\n\r\n", []ev{{"", "a"}, {"", "b"}}},
		{"mixed line ends in one stream", "event: e\r\ndata: a\r\rdata: b\n\ndata: c\r\n\r", []ev{{"e", "a"}, {"", "b"}, {"", "c"}}},
		{"bare cr ends the final blank line", "data: a\r\r", []ev{{"", "a"}}},
		{"byte-order mark before a bare-cr line", "\xef\xbb\xbfdata: x\r\r", []ev{{"", "x"}}},
	}
	for _, tt := range tests {
		// Byte by byte, the blank line ending an event is never buffered
		// yet when its data line is read; whole, it always is, and the
		// data is handed out uncopied.
		for reader, r := range map[string]func() io.Reader{
			"one byte at a time": func() io.Reader { return iotest.OneByteReader(strings.NewReader(tt.in)) },
			"whole":              func() io.Reader { return strings.NewReader(tt.in) },
		} {
			t.Run(tt.name+"/"+reader, func(t *testing.T) {
				got, err := decodeAll(t, r())
				if !errors.Is(err, io.EOF) {
					t.Fatalf("err = %v, want io.EOF", err)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("event %d = %q, want %q", i, got[i], tt.want[i])
					}
				}
			})
		}
	}
}

func TestDecoder_LinesLongerThanTheBuffer(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	got, err := decodeAll(t, strings.NewReader("data: "+long+"\n\n"))
	if !errors.Is(err, io.EOF) || len(got) != 1 || got[0].data != long {
		t.Fatalf("got %d events, err %v", len(got), err)
	}
}

func TestDecoder_ReadErrorsSurface(t *testing.T) {
	boom := errors.New("boom")
	_, err := decodeAll(t, io.MultiReader(strings.NewReader("data: a\n\n"), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

func BenchmarkDecoder(b *testing.B) {
	var sb strings.Builder
	for range 1000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n")
	}
	in := sb.String()
	b.ReportAllocs()
	r := strings.NewReader(in)
	d := NewDecoder(r, 0)
	for b.Loop() {
		r.Reset(in)
		d.r.Reset(r)
		for {
			if _, err := d.Next(); err != nil {
				break
			}
		}
	}
}

// endless is a server that never ends its line: it counts what it serves.
type endless struct {
	b    byte
	read int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	e.read += len(p)
	return len(p), nil
}

func TestDecoder_LineOverTheLimitFailsBeforeItIsReadWhole(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		name   string
		prefix string
	}{
		{"endless data line", "data: "},
		{"endless comment line", ": "},
		{"endless field name", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &endless{b: 'a'}
			d := NewDecoder(io.MultiReader(strings.NewReader(tc.prefix), src), limit)
			_, err := d.Next()
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("err = %v, want ErrEventTooLarge", err)
			}
			// The decoder stops within one buffer of the limit.
			if src.read > limit+2*(64<<10) {
				t.Errorf("read %d bytes for a %d-byte limit", src.read, limit)
			}
		})
	}
}

func TestDecoder_EventOfManyLinesOverTheLimitFails(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1000) + "\n"
	in := strings.Repeat(line, 100) + "\n" // 100 kB of data in one event
	_, err := decodeAllLimit(t, strings.NewReader(in), 50_000)
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want ErrEventTooLarge", err)
	}
	evs, err := decodeAllLimit(t, strings.NewReader(in), 200_000)
	if !errors.Is(err, io.EOF) || len(evs) != 1 {
		t.Fatalf("under the limit: %d events, err %v", len(evs), err)
	}
}

func TestDecoder_EventExactlyAtTheLimitPasses(t *testing.T) {
	data := strings.Repeat("y", 100)
	evs, err := decodeAllLimit(t, strings.NewReader("data: "+data+"\r\n\r\n"), len(data)+len("data: "))
	if !errors.Is(err, io.EOF) || len(evs) != 1 || evs[0].data != data {
		t.Fatalf("events %v, err %v", evs, err)
	}
}

func decodeAllLimit(t *testing.T, r io.Reader, limit int) ([]ev, error) {
	t.Helper()
	d := NewDecoder(r, limit)
	var out []ev
	for {
		e, err := d.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev{string(e.Type), string(e.Data)})
	}
}

// TestDecoder_BareCRLineEndsDispatchWithoutWaitingForMore pins that a
// stream ending its lines with CR alone delivers each event as soon as its
// blank line arrives: a decoder that looked for LF would wait for bytes
// the server never sends.
func TestDecoder_BareCRLineEndsDispatchWithoutWaitingForMore(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	d := NewDecoder(pr, 0)
	got := make(chan ev, 1)
	go func() {
		e, err := d.Next()
		if err != nil {
			close(got)
			return
		}
		got <- ev{string(e.Type), string(e.Data)}
	}()
	if _, err := pw.Write([]byte("data: a\r\r")); err != nil {
		t.Fatal(err)
	}
	if e, ok := <-got; !ok || e != (ev{"", "a"}) {
		t.Fatalf("event = %q (ok %v), want data a", e, ok)
	}
}

// FuzzDecoder_MatchesTheStandard decodes any input whole (where the
// uncopied fast path of a one-line event runs) and one byte at a time
// (where it never does) and compares both with a plain reading of the
// standard: lines split at CR LF, LF or CR, fields parsed, events
// dispatched at blank lines.
func FuzzDecoder_MatchesTheStandard(f *testing.F) {
	for _, s := range []string{
		"event: x\r\ndata: y\r\n\r\n", "data: a\rdata: b\r\r", "data: a\r\r\ndata: b\n\r\n",
		"\xef\xbb\xbfdata: x\n\n", ": ping\n\ndata:x\n\n", "data:\ndata: b\n\n", "event: e\n\ndata: c\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want := referenceDecode(in)
		for name, r := range map[string]io.Reader{
			"whole":              strings.NewReader(in),
			"one byte at a time": iotest.OneByteReader(strings.NewReader(in)),
		} {
			got, err := decodeAll(t, r)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("%s: err = %v", name, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: got %q, want %q", name, got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: event %d = %q, want %q", name, i, got[i], want[i])
				}
			}
		}
	})
}

// referenceDecode is the standard's event-stream interpretation, written
// for clarity, not speed; a final line without its terminator is dropped
// along with its unfinished event.
func referenceDecode(in string) []ev {
	in = strings.TrimPrefix(in, "\xef\xbb\xbf")
	var lines []string
	for {
		i := strings.IndexAny(in, "\r\n")
		if i < 0 {
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var out []ev
	var typ, data string
	hasData := false
	for _, line := range lines {
		if line == "" {
			if hasData {
				out = append(out, ev{typ, data})
			}
			typ, data, hasData = "", "", false
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "data":
			if hasData {
				data += "\n"
			}
			data += value
			hasData = true
		case "event":
			typ = value
		}
	}
	return out
}
