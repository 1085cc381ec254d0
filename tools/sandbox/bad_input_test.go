package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// snapshot lists every path under dir with its content, to check that a
// refused call changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			out[p] = string(b)
			return err
		}
		out[p] = d.Type().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTools_BadPathsAreTypedErrorsAndChangeNothing(t *testing.T) {
	cases := []struct {
		name string
		path string
		kind helikon.ToolErrorKind
	}{
		{"a path past PATH_MAX", strings.Repeat("a/", 3000) + "f", helikon.ToolInvalidArgs},
		{"a megabyte path", strings.Repeat("x", 1<<20), helikon.ToolInvalidArgs},
		{"a name past NAME_MAX", strings.Repeat("n", 300), helikon.ToolFailed},
		{"a directory where a file is expected", "dir", helikon.ToolFailed},
		{"a file where a directory is expected", "file.txt/child", helikon.ToolFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.put(t, "file.txt", "content\n")
			f.put(t, "dir/inner.txt", "inner\n")
			before := snapshot(t, filepath.Dir(f.root))
			r, w, e, m := tools(t, f.sb)
			for _, tc := range []struct {
				tool helikon.Tool
				args any
			}{
				{r, ReadArgs{FilePath: c.path}},
				{w, WriteArgs{FilePath: c.path, Content: "x"}},
				{e, EditArgs{FilePath: c.path, Replacement: Replacement{OldString: "content", NewString: "x"}}},
				{m, MultiEditArgs{FilePath: c.path, Edits: []Replacement{{OldString: "content", NewString: "x"}}}},
			} {
				_, err := call(t, tc.tool, tc.args)
				var te *helikon.ToolError
				if !errors.As(err, &te) || te.Kind != c.kind {
					t.Errorf("%s: err = %.200v, want a ToolError of kind %s", tc.tool.Name(), err, c.kind)
					continue
				}
				if len(err.Error()) > 1000 {
					t.Errorf("%s: an error of %d bytes: the path is echoed whole", tc.tool.Name(), len(err.Error()))
				}
			}
			if after := snapshot(t, filepath.Dir(f.root)); len(after) != len(before) {
				t.Errorf("the tree changed: %d entries, was %d", len(after), len(before))
			} else {
				for p, v := range before {
					if after[p] != v {
						t.Errorf("%s changed", p)
					}
				}
			}
		})
	}
}

func TestTools_NonUTF8NamesStayInsideTheRoot(t *testing.T) {
	f := newFixture(t)
	// A name a command made, which is not UTF-8: JSON cannot carry it, so
	// the model's spelling of it decodes with U+FFFD and names another
	// file, a clear not-found.
	f.put(t, "caf\xe9.txt", "latin-1 name\n")
	r, w, _, _ := tools(t, f.sb)
	raw := []byte("{\"file_path\":\"caf\xe9.txt\"}")
	_, err := r.Call(helikon.NewToolContext(t.Context(), nil, "c", "Read"), raw)
	wantKind(t, err, helikon.ToolFailed)
	// Writing under such a spelling creates the U+FFFD name inside the
	// root and nothing else.
	raw = []byte("{\"file_path\":\"new\xff.txt\",\"content\":\"x\"}")
	if _, err := w.Call(helikon.NewToolContext(t.Context(), nil, "c", "Write"), raw); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "new\uFFFD.txt"); got != "x" {
		t.Errorf("content %q", got)
	}
	if ents, _ := os.ReadDir(f.outside); len(ents) != 1 {
		t.Errorf("files outside = %d, want 1", len(ents))
	}
}
