// Package tagged encodes and decodes the core's sealed unions (events,
// loop states, content parts, model events) as JSON objects whose first
// member, "type", names the variant, so that every variant round-trips
// through a single decoder.
package tagged

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// Marshal encodes v (which must be a struct type without a MarshalJSON
// method, usually a local alias of the caller's type) as a JSON object whose
// first member is "type": tag.
func Marshal(tag string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(len(tag) + len(body) + 12)
	buf.WriteString(`{"type":`)
	t, _ := json.Marshal(tag)
	buf.Write(t)
	if len(body) > 2 { // not "{}"
		buf.WriteByte(',')
		buf.Write(body[1:])
	} else {
		buf.WriteByte('}')
	}
	return buf.Bytes(), nil
}

// PeekType reads the "type" member of a JSON object.
func PeekType(data []byte) (string, error) {
	var h struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return "", err
	}
	if h.Type == "" {
		return "", fmt.Errorf("missing \"type\" member")
	}
	return h.Type, nil
}

// DecodeAs decodes data into a fresh T (through a *T, so pointer-receiver
// UnmarshalJSON methods apply) and returns it as the union type U.
func DecodeAs[T any, U any](data []byte) (U, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		var zero U
		return zero, err
	}
	return any(v).(U), nil
}

// Union decodes the variants of one sealed union by their "type" member.
type Union[U any] struct {
	kind     string
	variants func() map[string]func([]byte) (U, error)
}

// NewUnion returns the decoder of the union its errors call kind ("event");
// variants builds the decoder of each "type", once, on first use, so that
// a program that decodes none pays nothing at start-up.
func NewUnion[U any](kind string, variants func() map[string]func([]byte) (U, error)) *Union[U] {
	return &Union[U]{kind: kind, variants: sync.OnceValue(variants)}
}

// Decode decodes data as the variant its "type" member names.
func (u *Union[U]) Decode(data []byte) (U, error) {
	var zero U
	typ, err := PeekType(data)
	if err != nil {
		return zero, fmt.Errorf("helikon: %s: %w", u.kind, err)
	}
	dec, ok := u.variants()[typ]
	if !ok {
		// The type comes from whatever sent the data: quoted, so that
		// control characters cannot forge log lines, and cut, so that a
		// megabyte of it does not become the error.
		if len(typ) > maxTypeInError {
			typ = typ[:maxTypeInError] + "…"
		}
		return zero, fmt.Errorf("helikon: unknown %s type %q", u.kind, typ)
	}
	return dec(data)
}

// maxTypeInError is how much of an unknown "type" an error repeats.
const maxTypeInError = 64
