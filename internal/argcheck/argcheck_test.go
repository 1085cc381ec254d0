package argcheck

import (
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
	fast, err := New(s, true)
	if err != nil {
		t.Fatal(err)
	}
	if fast.flat == nil {
		t.Fatal("a flat struct did not get the fast path")
	}
	full, _ := New(s, false)
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
	c, _ := New(s, true)
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
	fast, _ := New(s, true)
	full, _ := New(s, false)
	f.Fuzz(func(t *testing.T, in string) {
		var a, b flatArgs
		ea := fast.Decode([]byte(in), &a)
		eb := full.Decode([]byte(in), &b)
		if (ea == nil) != (eb == nil) {
			t.Fatalf("%q: fast %v, full %v", in, ea, eb)
		}
	})
}
