// Package eventcodec is the storage encoding the session backends share: an
// event is kept as its whole JSON, so every field and the nanoseconds of
// its timestamp survive whatever column types a store offers.
package eventcodec

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/paigasus/helikon"
)

// Record is an event ready to store. Payload's "seq" is always 0: the
// store's own sequence column is the authority, because sequence numbers
// are assigned under the store's lock, after encoding.
type Record struct {
	Kind    string
	Time    time.Time
	Payload []byte
}

// Encode prepares events for storage, stamping a zero Time with the current
// time as [helikon.MemorySession] does. It does not modify events.
func Encode(events []helikon.SessionEvent) ([]Record, error) {
	recs := make([]Record, len(events))
	for i, ev := range events {
		ev.Seq = 0
		if ev.Time.IsZero() {
			ev.Time = time.Now().UTC()
		}
		payload, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encode event %d (%s): %w", i, ev.Kind, err)
		}
		recs[i] = Record{Kind: string(ev.Kind), Time: ev.Time, Payload: payload}
	}
	return recs, nil
}

// Decoder restores the stored events of one read, in order. It calls the
// event's own one-pass decoder directly (it validates what it reads, so
// the general decoder's scan of the whole payload first is not needed) and
// shares the names the events repeat ([helikon.EventDecoder]). The zero
// Decoder is ready to use; it is not safe for concurrent use.
type Decoder struct{ d helikon.EventDecoder }

// Decode restores the event stored at position seq. payload may be reused
// by the caller once Decode returns.
func (d *Decoder) Decode(seq int64, payload []byte) (helikon.SessionEvent, error) {
	var ev helikon.SessionEvent
	if err := d.d.Decode(payload, &ev); err != nil {
		return ev, &DecodeError{Seq: seq, Err: err}
	}
	ev.Seq = helikon.SequenceID(seq)
	return ev, nil
}

// DecodeError reports a stored event that does not decode.
type DecodeError struct {
	Seq int64 // the event's position
	Err error
}

// Error names the event's position and what is wrong with it.
func (e *DecodeError) Error() string { return fmt.Sprintf("decode event %d: %v", e.Seq, e.Err) }

// Unwrap returns the decoder's error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Is reports whether target is [helikon.ErrSessionCorrupt], which every
// DecodeError is.
func (e *DecodeError) Is(target error) bool { return target == helikon.ErrSessionCorrupt }
