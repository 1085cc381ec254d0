package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/paigasus/helikon"
)

// nulEscape is how JSON writes a NUL character, which a jsonb column
// refuses ("unsupported Unicode escape sequence") and which a json column
// stores but cannot hand to the ->> operator.
var nulEscape = []byte(`\u0000`)

// wrappedKey names the member of a wrapped payload.
const wrappedKey = "helikon_payload"

// wrappedPrefix begins every wrapped payload, whether this package wrote it
// ({"helikon_payload":…}) or a jsonb column rendered it
// ({"helikon_payload": …}). No event begins so: the encoder writes "type"
// first, and jsonb renders the shorter key "ts" before any longer one.
var wrappedPrefix = []byte(`{"` + wrappedKey + `"`)

// storedPayload returns the form of an event's JSON payload that the
// payload column stores losslessly, whether it is json or jsonb. A payload
// that holds a NUL character is stored as a JSON string inside
// {"helikon_payload": …}, where the NUL stays an escape sequence that
// jsonb accepts and that ad-hoc ->> queries on other rows survive; reads
// unwrap it ([eventPayload]). (A payload that merely mentions the six
// characters \u0000 is wrapped too, which costs nothing but the wrapping.)
func storedPayload(payload []byte) (string, error) {
	if !bytes.Contains(payload, nulEscape) {
		return string(payload), nil
	}
	wrapped, err := json.Marshal(map[string]string{wrappedKey: string(payload)})
	if err != nil {
		return "", err
	}
	return string(wrapped), nil
}

// errBadPayload reports a payload value that is neither the json nor the
// jsonb this package stores.
var errBadPayload = fmt.Errorf("%w: malformed payload value", helikon.ErrSessionCorrupt)

// eventPayload returns the event JSON of the payload column's raw value,
// as the server sent it in format for a column of type oid: json as
// stored, or jsonb, rendered by the server (behind a version byte in the
// binary format). A wrapped payload ([storedPayload]) is unwrapped into a
// new slice.
func eventPayload(raw []byte, oid uint32, format int16) ([]byte, error) {
	if oid == pgtype.JSONBOID && format == pgx.BinaryFormatCode {
		if len(raw) == 0 || raw[0] != 1 {
			return nil, fmt.Errorf("%w: jsonb of version %v", errBadPayload, raw[:min(len(raw), 1)])
		}
		raw = raw[1:]
	}
	if !bytes.HasPrefix(raw, wrappedPrefix) {
		return raw, nil
	}
	var wrapped map[string]string
	if err := json.Unmarshal(raw, &wrapped); err != nil || len(wrapped) != 1 {
		return nil, fmt.Errorf("%w: a wrapped payload that is not one %q string", errBadPayload, wrappedKey)
	}
	return []byte(wrapped[wrappedKey]), nil
}
