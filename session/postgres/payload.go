package postgres

import (
	"bytes"
	"encoding/json"
)

// nulEscape is how JSON writes a NUL character, which a jsonb column
// refuses ("unsupported Unicode escape sequence").
var nulEscape = []byte(`\u0000`)

// wrappedKey names the member of a wrapped payload.
const wrappedKey = "helikon_payload"

// jsonbPayload returns the form of an event's JSON payload that a jsonb
// column stores losslessly. A payload that holds a NUL character is stored
// as a JSON string inside {"helikon_payload": …}, where the NUL stays an
// escape sequence the column accepts; reads unwrap it ([readPayloadSQL]).
// (A payload that merely mentions the six characters \u0000 is wrapped
// too, which costs nothing but the wrapping.)
func jsonbPayload(payload []byte) (string, error) {
	if !bytes.Contains(payload, nulEscape) {
		return string(payload), nil
	}
	wrapped, err := json.Marshal(map[string]string{wrappedKey: string(payload)})
	if err != nil {
		return "", err
	}
	return string(wrapped), nil
}

// readPayloadSQL selects a stored payload as the event's JSON, unwrapping
// what [jsonbPayload] wrapped.
const readPayloadSQL = `COALESCE(payload->>'` + wrappedKey + `', payload::text)`
