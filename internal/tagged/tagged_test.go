package tagged_test

import (
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
