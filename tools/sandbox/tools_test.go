package sandbox

import (
	"fmt"
	"github.com/paigasus/helikon/governance"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

func TestRead_OffsetLimitAndMarkers(t *testing.T) {
	f := newFixture(t)
	f.put(t, "five.txt", "a\nb\nc\nd\ne\n")
	f.put(t, "nolf.txt", "x\ny")
	f.put(t, "empty.txt", "")
	r, _, _, _ := tools(t, f.sb)
	cases := []struct {
		name string
		in   ReadArgs
		want string
	}{
		{"whole file", ReadArgs{FilePath: "five.txt"}, "1\ta\n2\tb\n3\tc\n4\td\n5\te\n"},
		{"offset and limit", ReadArgs{FilePath: "five.txt", Offset: 2, Limit: 2}, "2\tb\n3\tc\n[more lines follow; read on with offset=4]\n"},
		{"limit reaching the end", ReadArgs{FilePath: "five.txt", Offset: 4, Limit: 2}, "4\td\n5\te\n"},
		{"offset past the end", ReadArgs{FilePath: "five.txt", Offset: 9}, "5 lines, none at offset 9: five.txt"},
		{"no final newline", ReadArgs{FilePath: "nolf.txt"}, "1\tx\n2\ty"},
		{"empty file", ReadArgs{FilePath: "empty.txt"}, "0 lines, none at offset 1: empty.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := call(t, r, c.in)
			if err != nil || got != c.want {
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestRead_ByteCapCutsWithAMarker(t *testing.T) {
	f := newFixture(t)
	f.put(t, "big.txt", strings.Repeat("0123456789\n", 100)+strings.Repeat("z", 100000)+"\n")
	r, err := NewRead(f.sb, WithReadMaxBytes(100))
	if err != nil {
		t.Fatal(err)
	}
	got, err := call(t, r, ReadArgs{FilePath: "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "1\t0123456789\n") || !strings.Contains(got, "[truncated at 100 bytes in line 8; read on with offset=9]") {
		t.Fatalf("got %q", got)
	}
	// A single line longer than the reader's buffer is cut too.
	got, err = call(t, r, ReadArgs{FilePath: "big.txt", Offset: 101})
	if err != nil || !strings.HasPrefix(got, "101\tzzz") || !strings.Contains(got, "[truncated at 100 bytes in line 101; read on with offset=102]") || len(got) > 200 {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestRead_BinaryFilesAreReportedNotDumped(t *testing.T) {
	f := newFixture(t)
	f.put(t, "nul.bin", "ELF\x00\x01\x02")
	f.put(t, "latin1.txt", "caf\xe9\n")
	f.put(t, "utf8.txt", strings.Repeat("é", sniffLen)) // a rune cut at the sniff boundary
	r, _, _, _ := tools(t, f.sb)
	for _, c := range []struct{ path, want string }{
		{"nul.bin", "binary file (6 bytes), not shown: nul.bin"},
		{"latin1.txt", "binary file (5 bytes), not shown: latin1.txt"},
	} {
		if got, err := call(t, r, ReadArgs{FilePath: c.path}); err != nil || got != c.want {
			t.Errorf("%s: got %q, %v", c.path, got, err)
		}
	}
	if got, err := call(t, r, ReadArgs{FilePath: "utf8.txt"}); err != nil || !strings.HasPrefix(got, "1\téé") {
		t.Errorf("valid UTF-8 cut at the sniff boundary: got %.20q, %v", got, err)
	}
}

func TestRead_BadInput(t *testing.T) {
	f := newFixture(t)
	f.put(t, "a.txt", "a\n")
	if err := os.Mkdir(filepath.Join(f.root, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	haveFIFO := makeFIFO(t, filepath.Join(f.root, "fifo"))
	r, _, _, _ := tools(t, f.sb)
	cases := []struct {
		name string
		args string
		kind helikon.ToolErrorKind
		fifo bool
	}{
		{"missing file", `{"file_path":"nope.txt"}`, helikon.ToolFailed, false},
		{"a directory", `{"file_path":"dir"}`, helikon.ToolFailed, false},
		{"a FIFO, without blocking", `{"file_path":"fifo"}`, helikon.ToolDenied, true},
		{"negative offset", `{"file_path":"a.txt","offset":-1}`, helikon.ToolInvalidArgs, false},
		{"no path", `{}`, helikon.ToolInvalidArgs, false},
		{"empty path", `{"file_path":""}`, helikon.ToolInvalidArgs, false},
		{"wrong type", `{"file_path":7}`, helikon.ToolInvalidArgs, false},
		{"malformed JSON", `{"file_path":`, helikon.ToolInvalidArgs, false},
		{"unknown field", `{"file_path":"a.txt","bogus":1}`, helikon.ToolInvalidArgs, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.fifo && !haveFIFO {
				t.Skip("no FIFOs on " + runtime.GOOS)
			}
			_, err := r.Call(helikon.NewToolContext(t.Context(), nil, "c", "Read"), []byte(c.args))
			wantKind(t, err, c.kind)
		})
	}
}

func TestWrite_CreatesParentsAndReplacesAtomically(t *testing.T) {
	f := newFixture(t)
	_, w, _, _ := tools(t, f.sb)
	if _, err := call(t, w, WriteArgs{FilePath: "a/b/c.txt", Content: "one"}); err != nil {
		t.Fatal(err)
	}
	if got := f.get(t, "a/b/c.txt"); got != "one" {
		t.Fatalf("content %q", got)
	}
	if err := os.Chmod(filepath.Join(f.root, "a/b/c.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Replacing renames a new inode over the old: a reader holding the old
	// file sees the old content whole, never a torn one.
	old, err := os.Open(filepath.Join(f.root, "a/b/c.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := call(t, w, WriteArgs{FilePath: "a/b/c.txt", Content: "two"}); err != nil {
		t.Fatal(err)
	}
	if b := make([]byte, 8); true {
		n, _ := old.Read(b)
		if string(b[:n]) != "one" {
			t.Errorf("the old inode reads %q, want one", b[:n])
		}
	}
	if got := f.get(t, "a/b/c.txt"); got != "two" {
		t.Fatalf("content %q", got)
	}
	fi, _ := os.Stat(filepath.Join(f.root, "a/b/c.txt"))
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old 0600 kept", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Join(f.root, "a/b"))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestWrite_BadInput(t *testing.T) {
	f := newFixture(t)
	f.put(t, "dir/x", "")
	w, err := NewWrite(f.sb, WithWriteMaxBytes(4))
	if err != nil {
		t.Fatal(err)
	}
	_, err = call(t, w, WriteArgs{FilePath: "a.txt", Content: "12345"})
	wantKind(t, err, helikon.ToolInvalidArgs)
	_, err = call(t, w, WriteArgs{FilePath: "dir", Content: "1"})
	wantKind(t, err, helikon.ToolFailed)
	_, err = call(t, w, WriteArgs{FilePath: ".", Content: "1"})
	wantKind(t, err, helikon.ToolFailed)
	_, err = call(t, w, WriteArgs{FilePath: "dir/x/y", Content: "1"}) // a file as a parent
	wantKind(t, err, helikon.ToolFailed)
}

func TestEdit_ExactMatchSemantics(t *testing.T) {
	cases := []struct {
		name    string
		content string
		rep     Replacement
		want    string // file afterwards
		errKind helikon.ToolErrorKind
		errText string
	}{
		{"one match", "a b c", Replacement{OldString: "b", NewString: "B"}, "a B c", "", ""},
		{"two matches refused", "x x", Replacement{OldString: "x", NewString: "y"}, "x x", helikon.ToolFailed, "occurs 2 times"},
		{"replace all", "x x", Replacement{OldString: "x", NewString: "y", ReplaceAll: true}, "y y", "", ""},
		{"no match", "abc", Replacement{OldString: "z", NewString: "y"}, "abc", helikon.ToolFailed, "not found"},
		{"empty old string", "abc", Replacement{NewString: "y"}, "abc", helikon.ToolInvalidArgs, "empty"},
		{"same strings", "abc", Replacement{OldString: "a", NewString: "a"}, "abc", helikon.ToolInvalidArgs, "the same"},
		{"whitespace is exact", "a  b", Replacement{OldString: "a b", NewString: "c"}, "a  b", helikon.ToolFailed, "not found"},
		{"delete", "keep drop", Replacement{OldString: " drop", NewString: ""}, "keep", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.put(t, "f.txt", c.content)
			_, _, e, _ := tools(t, f.sb)
			_, err := call(t, e, EditArgs{FilePath: "f.txt", Replacement: c.rep})
			if c.errKind == "" && err != nil {
				t.Fatal(err)
			}
			if c.errKind != "" {
				wantKind(t, err, c.errKind)
				if !strings.Contains(err.Error(), c.errText) {
					t.Errorf("error %q does not say %q", err, c.errText)
				}
			}
			if got := f.get(t, "f.txt"); got != c.want {
				t.Errorf("file %q, want %q", got, c.want)
			}
		})
	}
}

func TestEdit_RefusesBinaryMissingAndOversizedFiles(t *testing.T) {
	f := newFixture(t)
	f.put(t, "bin", "a\x00b")
	f.put(t, "big", strings.Repeat("a", 10))
	e, err := NewEdit(f.sb, WithWriteMaxBytes(8))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bin", "big", "missing"} {
		_, err := call(t, e, EditArgs{FilePath: p, Replacement: Replacement{OldString: "a", NewString: "c"}})
		wantKind(t, err, helikon.ToolFailed)
	}
	f.put(t, "grow", "ab")
	_, err = call(t, e, EditArgs{FilePath: "grow", Replacement: Replacement{OldString: "a", NewString: "123456789"}})
	wantKind(t, err, helikon.ToolInvalidArgs)
	if got := f.get(t, "grow"); got != "ab" {
		t.Errorf("file %q changed", got)
	}
}

func TestMultiEdit_AllOrNothing(t *testing.T) {
	f := newFixture(t)
	f.put(t, "f.go", "func a() {}\nfunc b() {}\n")
	_, _, _, m := tools(t, f.sb)
	_, err := call(t, m, MultiEditArgs{FilePath: "f.go", Edits: []Replacement{
		{OldString: "func a", NewString: "func A"},
		{OldString: "func c", NewString: "func C"},
	}})
	wantKind(t, err, helikon.ToolFailed)
	if !strings.Contains(err.Error(), "edit 2: old_string not found") {
		t.Errorf("error %q does not name edit 2", err)
	}
	if got := f.get(t, "f.go"); got != "func a() {}\nfunc b() {}\n" {
		t.Fatalf("a failed MultiEdit changed the file: %q", got)
	}
	got, err := call(t, m, MultiEditArgs{FilePath: "f.go", Edits: []Replacement{
		{OldString: "func a", NewString: "func A"},
		{OldString: "func A() {}", NewString: "func A() { b() }"}, // sees the first edit
	}})
	if err != nil || got != "replaced 2 occurrence(s) in f.go" {
		t.Fatalf("got %q, %v", got, err)
	}
	if got := f.get(t, "f.go"); got != "func A() { b() }\nfunc b() {}\n" {
		t.Fatalf("file %q", got)
	}
	_, err = call(t, m, MultiEditArgs{FilePath: "f.go"})
	wantKind(t, err, helikon.ToolInvalidArgs)
}

func TestTools_DeclareEffectAndFileAccess(t *testing.T) {
	f := newFixture(t)
	r, w, e, m := tools(t, f.sb)
	for _, c := range []struct {
		tool   helikon.Tool
		effect helikon.ToolEffect
		write  bool
	}{{r, helikon.ReadOnly, false}, {w, helikon.Write, true}, {e, helikon.Write, true}, {m, helikon.Write, true}} {
		if got := helikon.EffectOf(c.tool); got != c.effect {
			t.Errorf("%s effect %v, want %v", c.tool.Name(), got, c.effect)
		}
		ft, ok := c.tool.(governance.FileTool)
		if !ok {
			t.Fatalf("%s is not a governance.FileTool", c.tool.Name())
		}
		got, err := ft.FileAccess([]byte(`{"file_path":"./src/../app/.env"}`))
		if err != nil || len(got) != 1 || got[0] != (governance.FileAccess{Path: "app/.env", Resolved: "app/.env", Write: c.write}) {
			t.Errorf("%s FileAccess = %+v, %v", c.tool.Name(), got, err)
		}
		for _, bad := range []string{`{}`, `{"file_path":""}`, `not json`} {
			if _, err := ft.FileAccess([]byte(bad)); err == nil {
				t.Errorf("%s FileAccess(%s) did not fail closed", c.tool.Name(), bad)
			}
		}
	}
}

func TestTools_ToolsReturnsAllFour(t *testing.T) {
	f := newFixture(t)
	ts, err := f.sb.Tools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	if fmt.Sprint(names) != "[Read Write Edit MultiEdit]" {
		t.Errorf("names %v", names)
	}
}
