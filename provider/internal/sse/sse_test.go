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
