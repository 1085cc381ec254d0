package tagged_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/tagged"
)

type variant struct {
	A int `json:"a,omitempty"`
}

func TestMarshal_PutsTheTagFirstAndKeepsTheBody(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"empty body", variant{}, `{"type":"v"}`},
		{"members follow the tag", variant{A: 1}, `{"type":"v","a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tagged.Marshal("v", tt.v)
			if err != nil || string(got) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestPeekType_RejectsAnObjectWithoutATypeOrNotAnObject(t *testing.T) {
	tests := []struct {
		data    string
		want    string
		wantErr bool
	}{
		{`{"type":"v","a":1}`, "v", false},
		{`{"a":1}`, "", true},
		{`{"type":""}`, "", true},
		{`[1]`, "", true},
		{`{"type":`, "", true},
	}
	for _, tt := range tests {
		got, err := tagged.PeekType([]byte(tt.data))
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("PeekType(%s) = %q, %v; want %q, error %v", tt.data, got, err, tt.want, tt.wantErr)
		}
	}
}

type union interface{}

func TestDecodeAs_ReturnsTheVariantAsTheUnion(t *testing.T) {
	u, err := tagged.DecodeAs[variant, union]([]byte(`{"type":"v","a":2}`))
	if err != nil || u.(variant).A != 2 {
		t.Fatalf("DecodeAs = %#v, %v; want variant{A: 2}", u, err)
	}
	if _, err := tagged.DecodeAs[variant, union]([]byte(`{"a":"x"}`)); err == nil {
		t.Error("DecodeAs of a mistyped member succeeded")
	}
}

func TestUnion_DecodesByTypeAndNamesItsKindInErrors(t *testing.T) {
	built := 0
	u := tagged.NewUnion("thing", func() map[string]func([]byte) (union, error) {
		built++
		return map[string]func([]byte) (union, error){"v": tagged.DecodeAs[variant, union]}
	})
	if built != 0 {
		t.Fatal("NewUnion built the table before the first Decode")
	}
	tests := []struct {
		data, wantErr string
	}{
		{`{"type":"v","a":3}`, ""},
		{`{"type":"w"}`, `helikon: unknown thing type "w"`},
		{`{"a":1}`, `helikon: thing: missing "type" member`},
	}
	for _, tt := range tests {
		got, err := u.Decode([]byte(tt.data))
		switch {
		case tt.wantErr == "" && (err != nil || got.(variant).A != 3):
			t.Errorf("Decode(%s) = %#v, %v; want variant{A: 3}", tt.data, got, err)
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("Decode(%s) error = %v; want %q", tt.data, err, tt.wantErr)
		}
	}
	if built != 1 {
		t.Errorf("the table was built %d times; want once", built)
	}
}

// TestUnion_AnUnknownTypeIsQuotedAndCutInTheError pins that a hostile
// "type" (a control character, a megabyte) reaches the error escaped and
// at most 64 bytes long, while a plain one reads as before.
func TestUnion_AnUnknownTypeIsQuotedAndCutInTheError(t *testing.T) {
	u := tagged.NewUnion("thing", func() map[string]func([]byte) (union, error) {
		return map[string]func([]byte) (union, error){"v": tagged.DecodeAs[variant, union]}
	})
	_, err := u.Decode([]byte(`{"type":"w"}`))
	if err == nil || err.Error() != `helikon: unknown thing type "w"` {
		t.Errorf("plain unknown type: err = %v", err)
	}
	huge := `{"type":"x\nlevel=ERROR forged` + strings.Repeat("y", 1<<20) + `"}`
	_, err = u.Decode([]byte(huge))
	if err == nil || strings.Contains(err.Error(), "\n") || len(err.Error()) > 200 {
		t.Errorf("hostile type: err (%d bytes) = %.200q", len(fmt.Sprint(err)), fmt.Sprint(err))
	}
}
