package argcheck

import (
	"reflect"
	"strings"
	"testing"
)

type flatArgs struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Ratio float64 `json:"ratio"`
	On    bool    `json:"on"`
	Note  *string `json:"note,omitempty"`
	Small int8    `json:"small,omitempty"`
}

func TestArgChecker_FastAndFullPathsAgree(t *testing.T) {
	s, err := SchemaFor[flatArgs]()
	if err != nil {
		t.Fatal(err)
	}
	fast, err := New(s, reflect.TypeFor[flatArgs]())
	if err != nil {
		t.Fatal(err)
	}
	if fast.flat == nil {
		t.Fatal("a flat struct did not get the fast path")
	}
	full, _ := New(s, nil)
	tests := []struct {
		in      string
		wantErr string // "" = valid
	}{
		{`{"name":"a","count":1,"ratio":0.5,"on":true}`, ""},
		{` { "name" : "a\"b" , "count" : -3 , "ratio" : 1e3 , "on" : false , "note" : null } `, ""},
		{`{"name":"a","count":1,"ratio":0.5,"on":true,"note":"x","small":7}`, ""},
		{`{"na\u006de":"a","count":1,"ratio":0.5,"on":true}`, ""},
		{`{"count":1,"ratio":0.5,"on":true}`, "name"},
		{`{"name":null,"count":1,"ratio":0.5,"on":true}`, "name"},
		{`{"name":"a","count":"1","ratio":0.5,"on":true}`, "count"},
		{`{"name":"a","count":1.5,"ratio":0.5,"on":true}`, "count"},
		{`{"name":"a","count":1,"ratio":0.5,"on":true,"extra":1}`, "extra"},
		{`{"name":"a","count":1,"ratio":0.5,"on":true,"small":300}`, "small"},
		{`{"name":"a","count":1,"ratio":0.5,"on":"yes"}`, "on"},
		{`[1,2]`, "type"},
		{`{"name":"a",`, "JSON"},
		{``, "name"},
	}
	for _, tt := range tests {
		for _, c := range []*Checker{fast, full} {
			var v flatArgs
			errs := c.Decode([]byte(tt.in), &v)
			if tt.wantErr == "" {
				if errs != nil {
					t.Errorf("%s (fast=%v): unexpected errors %v", tt.in, c.flat != nil, errs)
				}
				continue
			}
			if errs == nil || !strings.Contains(strings.Join(errs, " "), tt.wantErr) {
				t.Errorf("%s (fast=%v): errors %v, want one mentioning %q", tt.in, c.flat != nil, errs, tt.wantErr)
			}
		}
	}
}

func TestArgChecker_NestedStructsTakeTheFullPath(t *testing.T) {
	type inner struct {
		X int `json:"x"`
	}
	type outer struct {
		In inner `json:"in"`
	}
	s, _ := SchemaFor[outer]()
	c, _ := New(s, reflect.TypeFor[outer]())
	if c.flat != nil {
		t.Fatal("nested struct got the flat fast path")
	}
	var v outer
	if errs := c.Decode([]byte(`{"in":{}}`), &v); errs == nil {
		t.Error("missing nested required field passed")
	}
}

func FuzzArgChecker_FastPathNeverAcceptsWhatFullRejects(f *testing.F) {
	for _, seed := range []string{`{"name":"a","count":1,"ratio":0.5,"on":true}`, `{"name":"a","count":1,"ratio":0.5,"on":true,"note":null}`, `{}`, `{"name":1}`} {
		f.Add(seed)
	}
	s, _ := SchemaFor[flatArgs]()
	fast, _ := New(s, reflect.TypeFor[flatArgs]())
	full, _ := New(s, nil)
	f.Fuzz(func(t *testing.T, in string) {
		var a, b flatArgs
		ea := fast.Decode([]byte(in), &a)
		eb := full.Decode([]byte(in), &b)
		if (ea == nil) != (eb == nil) {
			t.Fatalf("%q: fast %v, full %v", in, ea, eb)
		}
	})
}

// plainArgs has only plain scalar fields, which the fast path decodes in
// its one pass.
type plainArgs struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Ratio float64 `json:"ratio"`
	On    bool    `json:"on"`
	Small int8    `json:"small,omitempty"`
	Size  uint16  `json:"size,omitempty"`
	F32   float32 `json:"f32,omitempty"`
}

// decodeBoth decodes in with the one-pass checker and with full
// validation then encoding/json, and fails t when they disagree on the
// outcome or the value.
func decodeBoth(t *testing.T, onePass, full *Checker, in string) (errs []string) {
	t.Helper()
	var a, b plainArgs
	ea := onePass.Decode([]byte(in), &a)
	eb := full.Decode([]byte(in), &b)
	if (ea == nil) != (eb == nil) {
		t.Fatalf("%q: one pass %v, full %v", in, ea, eb)
	}
	if ea == nil && a != b {
		t.Fatalf("%q: one pass decoded %+v, encoding/json %+v", in, a, b)
	}
	return ea
}

func TestArgChecker_OnePassDecodesAsEncodingJSONDoes(t *testing.T) {
	s, err := SchemaFor[plainArgs]()
	if err != nil {
		t.Fatal(err)
	}
	onePass, _ := New(s, reflect.TypeFor[plainArgs]())
	if onePass.flat == nil || !onePass.flat.fields {
		t.Fatal("a struct of plain scalars did not get the one-pass decode")
	}
	full, _ := New(s, nil)
	for _, in := range []string{
		`{"name":"a","count":1,"ratio":0.5,"on":true}`,
		` { "name" : "a\"b\u00e9" , "count" : -3 , "ratio" : 1e3 , "on" : false } `,
		`{"name":"héllo","count":0,"ratio":-0.0,"on":true,"small":-128,"size":65535,"f32":3.4e38}`,
		`{"name":"","count":-0,"ratio":1E-5,"on":false,"count":7}`, // the last duplicate wins
		`{"name":"a","count":9223372036854775807,"ratio":0,"on":true}`,
		`{"name":"a","count":9223372036854775808,"ratio":0,"on":true}`, // overflows int
		`{"name":"a","count":1,"ratio":0,"on":true,"small":128}`,
		`{"name":"a","count":1,"ratio":0,"on":true,"size":-1}`,
		`{"name":"a","count":1,"ratio":0,"on":true,"f32":1e39}`,
		`{"name":"a","count":1.0,"ratio":0,"on":true}`,
		`{"name":"a","count":01,"ratio":0,"on":true}`,
		`{"name":"a","count":1,"ratio":.5,"on":true}`,
		`{"name":"a","count":1,"ratio":1.,"on":true}`,
		`{"name":"a","count":1,"ratio":0,"on":tru}`,
		`{"name":"a","count":1,"ratio":0,"on":truex}`,
		`{"name":"tab\there","count":1,"ratio":0,"on":true}`,
		"{\"name\":\"raw\ttab\",\"count\":1,\"ratio\":0,\"on\":true}",
		"{\"name\":\"bad \xff utf8\",\"count\":1,\"ratio\":0,\"on\":true}",
		`{"name":"a","count":1,"ratio":0,"on":true,"Name":"b"}`,
	} {
		decodeBoth(t, onePass, full, in)
	}
	var got plainArgs
	if errs := onePass.Decode([]byte(`{"name":"x","count":42,"ratio":2.5,"on":true,"size":7}`), &got); errs != nil ||
		got != (plainArgs{Name: "x", Count: 42, Ratio: 2.5, On: true, Size: 7}) {
		t.Fatalf("decoded %+v, %v", got, errs)
	}
}

func TestArgChecker_OnePassAllocatesOnlyTheStrings(t *testing.T) {
	s, _ := SchemaFor[plainArgs]()
	c, _ := New(s, reflect.TypeFor[plainArgs]())
	data := []byte(`{"name":"x","count":42,"ratio":2.5,"on":true}`)
	var v plainArgs
	if n := testing.AllocsPerRun(100, func() { c.Decode(data, &v) }); n > 1 {
		t.Fatalf("%v allocations a decode, want at most 1 (the name)", n)
	}
}

func FuzzArgChecker_OnePassDecodesAsEncodingJSONDoes(f *testing.F) {
	for _, seed := range []string{`{"name":"a","count":1,"ratio":0.5,"on":true}`, `{"name":"a\u0041","count":-1,"ratio":1e-3,"on":false,"small":3,"size":9,"f32":1.5}`, `{}`, `{"name":1}`} {
		f.Add(seed)
	}
	s, _ := SchemaFor[plainArgs]()
	onePass, _ := New(s, reflect.TypeFor[plainArgs]())
	full, _ := New(s, nil)
	f.Fuzz(func(t *testing.T, in string) { decodeBoth(t, onePass, full, in) })
}
