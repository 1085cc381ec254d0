package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/paigasus/helikon"
)

func TestEventPayload_ReadsEveryFormTheColumnSendsAndRejectsTheRest(t *testing.T) {
	const event = `{"seq":0,"type":"user_message"}`
	for _, tc := range []struct {
		name   string
		raw    string
		oid    uint32
		format int16
		want   string
		bad    bool
	}{
		{"json, text format", event, pgtype.JSONOID, pgx.TextFormatCode, event, false},
		{"json, binary format (the same bytes)", event, pgtype.JSONOID, pgx.BinaryFormatCode, event, false},
		{"jsonb, text format", event, pgtype.JSONBOID, pgx.TextFormatCode, event, false},
		{"jsonb, binary format behind its version byte", "\x01" + event, pgtype.JSONBOID, pgx.BinaryFormatCode, event, false},
		{"jsonb, binary format of an unknown version", "\x02" + event, pgtype.JSONBOID, pgx.BinaryFormatCode, "", true},
		{"jsonb, binary format and empty", "", pgtype.JSONBOID, pgx.BinaryFormatCode, "", true},
		{"wrapped as this package writes it", `{"helikon_payload":"{\"a\":\"\\u0000\"}"}`, pgtype.JSONOID, pgx.TextFormatCode, `{"a":"\u0000"}`, false},
		{"wrapped as jsonb renders it", `{"helikon_payload": "{\"a\":\"\\u0000\"}"}`, pgtype.JSONBOID, pgx.TextFormatCode, `{"a":"\u0000"}`, false},
		{"a key that only begins like the wrapper's", `{"helikon_payload_x":1}`, pgtype.JSONOID, pgx.TextFormatCode, `{"helikon_payload_x":1}`, false},
		{"a wrapper holding no string", `{"helikon_payload": 1}`, pgtype.JSONOID, pgx.TextFormatCode, "", true},
		{"a wrapper with another key", `{"helikon_payload": "{}", "x": "y"}`, pgtype.JSONOID, pgx.TextFormatCode, "", true},
		{"a truncated wrapper", `{"helikon_payload": "{`, pgtype.JSONOID, pgx.TextFormatCode, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := eventPayload([]byte(tc.raw), tc.oid, tc.format)
			if tc.bad {
				if !errors.Is(err, errBadPayload) || !errors.Is(err, helikon.ErrSessionCorrupt) {
					t.Fatalf("eventPayload(%q) = %q, %v; want errBadPayload", tc.raw, got, err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("eventPayload(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
			}
		})
	}
}
