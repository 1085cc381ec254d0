package postgres

import (
	"strings"
	"testing"
)

func TestStoredPayload_UnwrapsOnlyTheWrapperForm(t *testing.T) {
	for _, tc := range []struct {
		name, text, want, err string
	}{
		{"an event as jsonb writes it", `{"ts": "2026-12-01T00:00:00Z", "type": "user_message"}`, `{"ts": "2026-12-01T00:00:00Z", "type": "user_message"}`, ""},
		{"a wrapped event", `{"helikon_payload": "{\"type\":\"user_message\",\"text\":\"a\\u0000b\"}"}`, `{"type":"user_message","text":"a\u0000b"}`, ""},
		{"a wrapper that is not a string", `{"helikon_payload": 42}`, "", "does not unwrap"},
		{"a wrapper with a second key", `{"helikon_payload": "{}", "helikon_payloadx": "{}"}`, "", "does not unwrap"},
		{"a cut wrapper", `{"helikon_payload": "{\"ty`, "", "does not unwrap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := storedPayload([]byte(tc.text))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("storedPayload = %q, %v; want an error saying %q", got, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("storedPayload = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
