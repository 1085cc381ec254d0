package sidecar_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon/cli/sidecar"
)

// FuzzParse parses arbitrary sidecar text: a cloned project's sidecar is
// whatever its author wrote. Parse returns a file or errors that each
// name the file, and never panics.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*/*.toml")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		"[agents.a]\nmodel = { provider = \"mock\" }\nhandoffs = [\"a\"]\n",
		"[agents.a]\ntools = [\"t\", \"t\", \"\"]\n[tools.t]\ninline = '''\ndef run(x): return x\n'''\n",
		"[tools.\"\\u0000\"]\ninline = ''\n",
		"agents = 1\n",
		"[[agents]]\n",
		"a.b.c.d.e.f = [[[[[[[[1]]]]]]]]\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "helikon.toml")
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := sidecar.Parse(path, data)
		if err == nil {
			if file == nil {
				t.Fatal("no file and no error")
			}
			return
		}
		var es sidecar.Errors
		var e *sidecar.Error
		switch {
		case errors.As(err, &es):
			for _, x := range es {
				if x.File != path {
					t.Fatalf("error %q names %q, not the file", x.Msg, x.File)
				}
			}
		case errors.As(err, &e):
			if e.File != path {
				t.Fatalf("error %q names %q, not the file", e.Msg, e.File)
			}
		default:
			t.Fatalf("untyped error %T: %v", err, err)
		}
	})
}
