package evals_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/evals"
)

func TestParseDataset_ReadsCasesAndDefaults(t *testing.T) {
	src := `{"id":"add","input":"what is 40+2?","expected":"42","expected_tools":["add"],"metadata":{"tier":1}}

{"input":"structured","expected":{"sum":42}}
  {"input":"no tools expected","expected_tools":[]}
`
	ds, err := evals.ParseDataset(strings.NewReader(src), "inline.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "inline.jsonl" || len(ds.Cases) != 3 {
		t.Fatalf("got %+v", ds)
	}
	c0, c1, c2 := ds.Cases[0], ds.Cases[1], ds.Cases[2]
	if c0.ID != "add" || c0.Line != 1 || string(c0.Expected) != `"42"` || c0.ExpectedTools[0] != "add" || c0.Metadata["tier"] == nil {
		t.Errorf("case 0 = %+v", c0)
	}
	if c1.ID != "case-3" || c1.Line != 3 || string(c1.Expected) != `{"sum":42}` || c1.ExpectedTools != nil {
		t.Errorf("case 1 (blank line skipped, id from its line) = %+v", c1)
	}
	if c2.ExpectedTools == nil || len(c2.ExpectedTools) != 0 || c2.Expected != nil {
		t.Errorf("case 2: an empty expected_tools must stay distinct from none: %+v", c2)
	}
}

func TestParseDataset_ErrorsNameFileLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		line, col  int
		wantSubstr string
	}{
		{"syntax", `{"input":"a"}` + "\n" + `{"input": "b",, }`, 2, 15, "invalid character"},
		{"bad literal", `{"input": tru}`, 1, 14, "in literal true"},
		{"unknown member", `{"input":"a", "expectd":"x"}`, 1, 15, `unknown member "expectd"`},
		{"wrong type", `{"input": 42}`, 1, 11, "input: must be a string"},
		{"tools not strings", `{"input":"a","expected_tools":[1]}`, 1, 31, "expected_tools"},
		{"missing input", `{"id":"x"}`, 1, 0, `missing required member "input"`},
		{"empty input", `{"input":""}`, 1, 10, "must not be empty"},
		{"not an object", `["input"]`, 1, 1, "JSON object"},
		{"two objects", `{"input":"a"} {"input":"b"}`, 1, 15, "one JSON object per line"},
		{"truncated", `{"input":"a"`, 1, 13, "unexpected end"},
		{"duplicate id", `{"id":"a","input":"x"}` + "\n" + `{"id":"a","input":"y"}`, 2, 0, `duplicate id "a" (first on line 1)`},
		{"duplicate member", `{"input":"x","input":"y"}`, 1, 14, "duplicate member"},
		{"column counts characters", `{"input":"héllo", "x":1}`, 1, 19, "unknown member"},
		{"invalid utf-8", "{\"input\":\"a\xffb\"}", 1, 12, "invalid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := evals.ParseDataset(strings.NewReader(tc.src), "cases.jsonl")
			var de *evals.DatasetError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DatasetError", err)
			}
			if de.File != "cases.jsonl" || de.Line != tc.line || de.Column != tc.col || !strings.Contains(err.Error(), tc.wantSubstr) {
				t.Errorf("got %s:%d:%d %q, want line %d col %d containing %q", de.File, de.Line, de.Column, err, tc.line, tc.col, tc.wantSubstr)
			}
		})
	}
}

func TestParseDataset_BoundsLinesAndCases(t *testing.T) {
	long := `{"input":"` + strings.Repeat("x", 200) + `"}`
	_, err := evals.ParseDataset(strings.NewReader("{\"input\":\"a\"}\n"+long), "d", evals.WithMaxLineBytes(100))
	var de *evals.DatasetError
	if !errors.As(err, &de) || !errors.Is(err, evals.ErrLineTooLong) || de.Line != 2 {
		t.Fatalf("long line: %v", err)
	}
	_, err = evals.ParseDataset(strings.NewReader("{\"input\":\"a\"}\n{\"input\":\"b\"}\n"), "d", evals.WithMaxCases(1))
	if !errors.Is(err, evals.ErrTooManyCases) {
		t.Fatalf("too many cases: %v", err)
	}
}

func TestLoadDataset_NamesTheFileInErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(path, []byte("{\"input\":\"ok\"}\r\n{oops}\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := evals.LoadDataset(path)
	if err == nil || !strings.HasPrefix(err.Error(), "evals: "+path+":2:2: ") {
		t.Fatalf("err = %v", err)
	}
	if _, err := evals.LoadDataset(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzParseDataset pins that loading never panics, that every error is a
// *DatasetError with a place, and that what loads is well-formed.
func FuzzParseDataset(f *testing.F) {
	for _, s := range []string{
		`{"input":"a"}`,
		`{"id":"x","input":"a","expected":{"k":[1,2.5,null]},"expected_tools":["t"],"metadata":{"m":true}}`,
		"{\"input\":\"a\"}\n\n{\"input\":\"b\",}",
		`{"input":"a","expected_tools":null,"metadata":null,"expected":null}`,
		`[[[[[[[[[[`, `{"input":"\ud800"}`, "\xff\xfe", `{"input":"a"}}`, `{"":1}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		ds, err := evals.ParseDataset(strings.NewReader(src), "f.jsonl", evals.WithMaxLineBytes(4096))
		if err != nil {
			var de *evals.DatasetError
			if !errors.As(err, &de) || de.Line < 1 || de.Column < 0 {
				t.Fatalf("error %v (%T) has no place", err, err)
			}
			return
		}
		seen := map[string]bool{}
		for _, c := range ds.Cases {
			if c.Input == "" || c.ID == "" || c.Line < 1 || seen[c.ID] {
				t.Fatalf("bad case %+v", c)
			}
			seen[c.ID] = true
		}
	})
}
