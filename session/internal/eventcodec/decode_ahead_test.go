package eventcodec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session"
)

// storedLog returns n stored events, payload i a user message saying i,
// padded with pad bytes of text.
func storedLog(t *testing.T, n, pad int) [][]byte {
	t.Helper()
	log := make([][]byte, n)
	for i := range log {
		recs, err := Encode([]helikon.SessionEvent{session.UserMessage(helikon.TextPart{Text: fmt.Sprint(i, strings.Repeat("x", pad))})})
		if err != nil {
			t.Fatal(err)
		}
		log[i] = recs[0].Payload
	}
	return log
}

// reader emits log as a store's read loop would, reusing one buffer for
// every payload so that a decoder holding on to it would see it change.
func reader(log [][]byte, emitted *int) RawFunc {
	return func(emit func(int64, []byte) error) error {
		var buf []byte
		for i, p := range log {
			buf = append(buf[:0], p...)
			*emitted = i + 1
			if err := emit(int64(i), buf); err != nil {
				return err
			}
		}
		return nil
	}
}

func TestDecodeAhead_HandsEveryEventInOrderOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range []struct {
		name   string
		n, pad int
	}{
		{"empty", 0, 0},
		{"one", 1, 0},
		{"one short of a batch", batchEvents - 1, 0},
		{"a batch", batchEvents, 0},
		{"a batch and one", batchEvents + 1, 0},
		{"more batches than are in flight", 5*batchEvents + 7, 0},
		{"batches full by bytes", 40, batchBytes / 8},
		{"a payload larger than a batch", 3, 2 * batchBytes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := storedLog(t, tc.n, tc.pad)
			var emitted int
			var got []string
			err := DecodeAhead(t.Context(), reader(log, &emitted), func(ev helikon.SessionEvent) error {
				got = append(got, fmt.Sprint(int64(ev.Seq), ":", ev.Content[0].(helikon.TextPart).Text))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d events handed on, want %d", len(got), tc.n)
			}
			for i, g := range got {
				if want := fmt.Sprint(int64(i), ":", i, strings.Repeat("x", tc.pad)); g != want {
					t.Fatalf("event %d = %.40q, want %.40q", i, g, want)
				}
			}
		})
	}
}

func TestDecodeAhead_AnErrorEndsTheLoadWithIt(t *testing.T) {
	defer goleak.VerifyNone(t)
	errFn := errors.New("fn refused")
	errRead := errors.New("connection reset")
	const n = 6 * batchEvents
	for _, tc := range []struct {
		name string
		// failAt: fn fails on this event; readFailsAt: the read fails
		// after emitting this many; badAt: this payload does not decode.
		failAt, readFailsAt, badAt int
		want                       func(error) bool
	}{
		{"fn fails early", 3, -1, -1, func(err error) bool { return errors.Is(err, errFn) }},
		{"fn fails in a later batch", 2*batchEvents + 5, -1, -1, func(err error) bool { return errors.Is(err, errFn) }},
		{"read fails inline", -1, 10, -1, func(err error) bool { return errors.Is(err, errRead) }},
		{"read fails after batches", -1, 4*batchEvents + 1, -1, func(err error) bool { return errors.Is(err, errRead) }},
		{"a payload does not decode", -1, -1, batchEvents + 2, func(err error) bool {
			var de *DecodeError
			return errors.As(err, &de) && de.Seq == batchEvents+2 && errors.Is(err, helikon.ErrSessionCorrupt)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := storedLog(t, n, 0)
			if tc.badAt >= 0 {
				log[tc.badAt] = []byte(`{"type":`)
			}
			var emitted, calls int
			read := reader(log, &emitted)
			if tc.readFailsAt >= 0 {
				read = reader(log[:tc.readFailsAt], &emitted)
				inner := read
				read = func(emit func(int64, []byte) error) error {
					if err := inner(emit); err != nil {
						return err
					}
					return errRead
				}
			}
			afterFailure := false
			err := DecodeAhead(t.Context(), read, func(ev helikon.SessionEvent) error {
				if afterFailure {
					t.Errorf("fn called with event %d after it failed", ev.Seq)
				}
				calls++
				if int(ev.Seq) == tc.failAt {
					afterFailure = true
					return errFn
				}
				return nil
			})
			if !tc.want(err) {
				t.Fatalf("DecodeAhead = %v", err)
			}
			// A failing decoder stops the read within the batches in
			// flight: the one being filled and the one handed over when
			// the decoder stopped in its own.
			if stop := max(tc.failAt, tc.badAt); stop >= 0 && emitted > (stop/batchEvents+batchesInFlight)*batchEvents {
				t.Errorf("the read went on to event %d after the decoder stopped at %d", emitted, stop)
			}
		})
	}
}

// A read that panics after batches were handed over ends the decoding
// goroutine before the panic reaches the caller (one that recovers, as
// net/http does, would otherwise leak it).
func TestDecodeAhead_APanickingReadLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	log := storedLog(t, 6*batchEvents, 0)
	var emitted int
	inner := reader(log[:3*batchEvents], &emitted)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the read's panic", r)
			}
		}()
		_ = DecodeAhead(t.Context(), func(emit func(int64, []byte) error) error {
			if err := inner(emit); err != nil {
				return err
			}
			panic("boom")
		}, func(helikon.SessionEvent) error { return nil })
	}()
}

func TestDecodeAhead_ACancelledContextEndsTheRead(t *testing.T) {
	defer goleak.VerifyNone(t)
	ctx, cancel := context.WithCancel(t.Context())
	log := storedLog(t, 8*batchEvents, 0)
	var emitted int
	err := DecodeAhead(ctx, reader(log, &emitted), func(ev helikon.SessionEvent) error {
		if ev.Seq == 1 {
			cancel() // and the decoder is slow from here on
			<-ctx.Done()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("DecodeAhead = %v, want context.Canceled", err)
	}
	if emitted == len(log) {
		t.Errorf("the read went on to the end after the context was cancelled")
	}
}
