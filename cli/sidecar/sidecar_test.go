package sidecar_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/cli/sidecar"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/NAME.golden, rewriting it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	g := strings.TrimSuffix(path, ".toml") + ".golden"
	if *update {
		if err := os.WriteFile(g, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(g)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s:\n got: %s\nwant: %s", path, got, want)
	}
}

// TestLoad_GoldenValid pins what valid sidecars load into, the seed's own
// example first.
func TestLoad_GoldenValid(t *testing.T) {
	files, _ := filepath.Glob("testdata/ok/*.toml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := sidecar.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			out, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, p, string(out)+"\n")
		})
	}
}

// TestLoad_GoldenErrors pins every validation error, with its line.
func TestLoad_GoldenErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.toml")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			_, err := sidecar.Load(p)
			if err == nil {
				t.Fatal("loaded a bad sidecar")
			}
			var se *sidecar.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *sidecar.Error", err)
			}
			golden(t, p, err.Error()+"\n")
		})
	}
}

// TestLoad_CycleMessage pins the seed's wording for handoff cycles.
func TestLoad_CycleMessage(t *testing.T) {
	_, err := sidecar.Load("testdata/bad/cycle.toml")
	if err == nil || !strings.Contains(err.Error(), "handoff cycle detected") ||
		!strings.Contains(err.Error(), "declare one-way handoff chains") {
		t.Fatalf("err = %v", err)
	}
}

// TestLoad_MissingFile names the file and what went wrong.
func TestLoad_MissingFile(t *testing.T) {
	_, err := sidecar.Load("testdata/none.toml")
	if err == nil || !strings.Contains(err.Error(), "testdata/none.toml") {
		t.Fatalf("err = %v", err)
	}
}

// TestParse_Oversized refuses a sidecar over MaxFileSize before parsing.
func TestParse_Oversized(t *testing.T) {
	big := make([]byte, sidecar.MaxFileSize+1)
	_, err := sidecar.Parse("big.toml", big)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("err = %v", err)
	}
}

// TestFile_AgentNamesSorted makes the alphabetically first agent the default.
func TestFile_AgentNamesSorted(t *testing.T) {
	f, err := sidecar.Load("testdata/ok/seed.toml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.AgentNames(), ","); got != "budgeting,triage" {
		t.Fatalf("AgentNames = %s", got)
	}
}
