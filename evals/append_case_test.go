package evals_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/paigasus/helikon/evals"
)

func TestAppendCase_AppendsCasesThatLoadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	cases := []evals.Case{
		{ID: "jan", Input: "How much in January?", Expected: json.RawMessage(`"2,098"`), ExpectedTools: []string{"lookup", "lookup"}, Metadata: map[string]any{"run_id": "r1"}},
		{ID: "hi", Input: "hello", Expected: json.RawMessage(`"hi"`), ExpectedTools: []string{}},
	}
	for _, c := range cases {
		if err := evals.AppendCase(path, c); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := evals.LoadDataset(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Cases) != 2 {
		t.Fatalf("%d cases", len(ds.Cases))
	}
	a, b := ds.Cases[0], ds.Cases[1]
	if a.ID != "jan" || a.Input != "How much in January?" || string(a.Expected) != `"2,098"` || strings.Join(a.ExpectedTools, ",") != "lookup,lookup" || a.Metadata["run_id"] != "r1" {
		t.Errorf("first case %+v", a)
	}
	if b.ExpectedTools == nil || len(b.ExpectedTools) != 0 {
		t.Errorf("an empty trajectory came back as %#v: want [] (expects no call)", b.ExpectedTools)
	}
}

func TestAppendCase_RefusesWithoutChangingTheFile(t *testing.T) {
	dir := t.TempDir()
	good := `{"id":"a","input":"x"}` + "\n"
	tests := []struct {
		name, file string
		c          evals.Case
		opts       []evals.DatasetOption
		want       string
		is         error
	}{
		{"a taken id", good, evals.Case{ID: "a", Input: "y"}, nil, `"a" on line 1`, evals.ErrCaseExists},
		{"a dataset that does not load", `{"id":"a","inpt":"x"}` + "\n", evals.Case{ID: "b", Input: "y"}, nil, "cases.jsonl:1", nil},
		{"no id", good, evals.Case{Input: "y"}, nil, "needs an id", nil},
		{"no input", good, evals.Case{ID: "b"}, nil, "needs an id and an input", nil},
		{"invalid UTF-8", good, evals.Case{ID: "b", Input: "\xff"}, nil, "UTF-8", nil},
		{"a line over the limit", good, evals.Case{ID: "b", Input: strings.Repeat("x", 200)}, []evals.DatasetOption{evals.WithMaxLineBytes(100)}, "over 100", evals.ErrLineTooLong},
		{"a full dataset", good, evals.Case{ID: "b", Input: "y"}, []evals.DatasetOption{evals.WithMaxCases(1)}, "holds 1", evals.ErrTooManyCases},
		{"bad expected JSON", good, evals.Case{ID: "b", Input: "y", Expected: json.RawMessage(`{`)}, nil, "", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprint(i), "cases.jsonl")
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			err := evals.AppendCase(path, tt.c, tt.opts...)
			if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error %v, want one saying %q (is %v)", err, tt.want, tt.is)
			}
			if after, _ := os.ReadFile(path); string(after) != tt.file {
				t.Errorf("the file changed to %q", after)
			}
		})
	}
}

func TestAppendCase_ALastLineWithoutNewlineKeepsItsOwnLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	os.WriteFile(path, []byte(`{"id":"a","input":"x"}`), 0o644)
	if err := evals.AppendCase(path, evals.Case{ID: "b", Input: "y"}); err != nil {
		t.Fatal(err)
	}
	ds, err := evals.LoadDataset(path)
	if err != nil || len(ds.Cases) != 2 || ds.Cases[1].ID != "b" {
		t.Fatalf("%+v %v", ds, err)
	}
}

func TestAppendCase_ConcurrentAppendsAllLandWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			errs <- evals.AppendCase(path, evals.Case{ID: fmt.Sprint("c", i), Input: strings.Repeat("words ", 500)})
			// The same id from two callers at once: exactly one wins.
			errs <- evals.AppendCase(path, evals.Case{ID: "shared", Input: "x"})
		})
	}
	wg.Wait()
	close(errs)
	exists := 0
	for err := range errs {
		if errors.Is(err, evals.ErrCaseExists) {
			exists++
		} else if err != nil {
			t.Error(err)
		}
	}
	ds, err := evals.LoadDataset(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Cases) != n+1 || exists != n-1 {
		t.Errorf("%d cases (want %d), %d refused as existing (want %d)", len(ds.Cases), n+1, exists, n-1)
	}
}
