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

// Decoder restores the stored events of one read, in order, with the
// one-pass decoder (which validates what it reads, so encoding/json's scan
// of the whole payload first is not needed), falling back to the event's
// own UnmarshalJSON for a payload it does not handle. The events of one
// read share the identifiers they repeat (agent and tool names, call ids)
// instead of each getting its own copy, and their short texts (escaped or
// not) and arguments share allocations too, in chunks growing from 512
// bytes to 16 KiB as a read goes on, so a one-part message costs two
// allocations instead of four. A string keeps its whole chunk alive: a
// loaded projection keeps nearly all of them anyway, but a caller that
// scans a long log and keeps a few events keeps up to 16 KiB for each. A
// backend keeps one Decoder for a load of a log; the zero Decoder is ready
// to use. It is not safe for concurrent use.
type Decoder struct{ shared sharedStrings }

// Decode restores the event stored at position seq. payload may be reused
// by the caller once Decode returns.
func (d *Decoder) Decode(seq int64, payload []byte) (helikon.SessionEvent, error) {
	var ev helikon.SessionEvent
	if err := d.decode(payload, &ev); err != nil {
		return ev, &DecodeError{Seq: seq, Err: err}
	}
	ev.Seq = helikon.SequenceID(seq)
	return ev, nil
}

// decode decodes data, the JSON of a [helikon.SessionEvent], into e.
func (d *Decoder) decode(data []byte, e *helikon.SessionEvent) error {
	if decodeEventNames(data, e, &d.shared) {
		return nil
	}
	// Its own variable: e handed to json.Unmarshal would escape, and cost
	// the one-pass path an allocation per event.
	ev := new(helikon.SessionEvent)
	if err := json.Unmarshal(data, ev); err != nil {
		return err
	}
	*e = *ev
	return nil
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
