package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/paigasus/helikon"
)

// fixture is a sandbox root beside a directory outside it holding a
// secret, so every escape test can check nothing outside changed.
type fixture struct {
	sb      *Sandbox
	root    string
	outside string
	secret  string // a file outside the root
}

const secretText = "root:$6$outside-the-sandbox\n"

func newFixture(t testing.TB) *fixture {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "shadow")
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	sb, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return &fixture{sb: sb, root: root, outside: outside, secret: secret}
}

func (f *fixture) put(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) get(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func call(t *testing.T, tool helikon.Tool, args any) (string, error) {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tool.Call(helikon.NewToolContext(context.Background(), nil, "c1", tool.Name()), b)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(out.Content, &s); err != nil {
		t.Fatalf("output %s is not a JSON string: %v", out.Content, err)
	}
	return s, nil
}

func tools(t *testing.T, sb *Sandbox) (*Read, *Write, *Edit, *MultiEdit) {
	t.Helper()
	r, err := NewRead(sb)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWrite(sb)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEdit(sb)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMultiEdit(sb)
	if err != nil {
		t.Fatal(err)
	}
	return r, w, e, m
}

func wantKind(t *testing.T, err error, kind helikon.ToolErrorKind) {
	t.Helper()
	var te *helikon.ToolError
	if !errors.As(err, &te) || te.Kind != kind {
		t.Fatalf("err = %v, want a ToolError of kind %s", err, kind)
	}
}

func TestSandbox_EveryEscapeIsDeniedAndTouchesNothingOutside(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, f *fixture)
		path  func(f *fixture) string
	}{
		{"dot-dot", nil, func(f *fixture) string { return "../outside/shadow" }},
		{"dot-dot inside a path", nil, func(f *fixture) string { return "a/../../outside/shadow" }},
		{"absolute path outside", nil, func(f *fixture) string { return f.secret }},
		{"absolute /etc/passwd", nil, func(f *fixture) string { return "/etc/passwd" }},
		{"/proc/self/root", nil, func(f *fixture) string { return "/proc/self/root" + f.secret }},
		{"symlink to a file outside", func(t *testing.T, f *fixture) {
			if err := os.Symlink(f.secret, filepath.Join(f.root, "link")); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return "link" }},
		{"relative symlink climbing out", func(t *testing.T, f *fixture) {
			if err := os.Symlink("../outside/shadow", filepath.Join(f.root, "rel")); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return "rel" }},
		{"symlinked directory outside", func(t *testing.T, f *fixture) {
			if err := os.Symlink(f.outside, filepath.Join(f.root, "dir")); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return "dir/shadow" }},
		{"symlink to /proc/self/root", func(t *testing.T, f *fixture) {
			if err := os.Symlink("/proc/self/root", filepath.Join(f.root, "proc")); err != nil {
				t.Fatal(err)
			}
		}, func(f *fixture) string { return "proc" + f.secret }},
		{"hard link to a file outside", func(t *testing.T, f *fixture) {
			if err := os.Link(f.secret, filepath.Join(f.root, "hard")); err != nil {
				t.Skipf("cannot hard-link across the temp dirs: %v", err)
			}
		}, func(f *fixture) string { return "hard" }},
		{"NUL byte", nil, func(f *fixture) string { return "a\x00b" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			r, w, e, m := tools(t, f.sb)
			if c.setup != nil {
				// Planted after the tools exist, as a shell command
				// between two calls would.
				c.setup(t, f)
			}
			p := c.path(f)
			_, err := call(t, r, ReadArgs{FilePath: p})
			wantKind(t, err, helikon.ToolDenied)
			_, err = call(t, w, WriteArgs{FilePath: p, Content: "pwned"})
			wantKind(t, err, helikon.ToolDenied)
			_, err = call(t, e, EditArgs{FilePath: p, Replacement: Replacement{OldString: "root", NewString: "pwned"}})
			wantKind(t, err, helikon.ToolDenied)
			_, err = call(t, m, MultiEditArgs{FilePath: p, Edits: []Replacement{{OldString: "root", NewString: "pwned"}}})
			wantKind(t, err, helikon.ToolDenied)
			if b, err := os.ReadFile(f.secret); err != nil || string(b) != secretText {
				t.Errorf("the file outside changed: %q, %v", b, err)
			}
			if ents, _ := os.ReadDir(f.outside); len(ents) != 1 {
				t.Errorf("files outside = %d, want 1 (nothing created)", len(ents))
			}
		})
	}
}

func TestSandbox_AbsolutePathInsideTheRootWorks(t *testing.T) {
	f := newFixture(t)
	f.put(t, "a.txt", "hello\n")
	r, _, _, _ := tools(t, f.sb)
	got, err := call(t, r, ReadArgs{FilePath: filepath.Join(f.root, "a.txt")})
	if err != nil || got != "1\thello\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestSandbox_SymlinkInsideTheRootIsFollowed(t *testing.T) {
	f := newFixture(t)
	f.put(t, "real/a.txt", "inside\n")
	if err := os.Symlink("real", filepath.Join(f.root, "alias")); err != nil {
		t.Fatal(err)
	}
	r, _, _, _ := tools(t, f.sb)
	if got, err := call(t, r, ReadArgs{FilePath: "alias/a.txt"}); err != nil || got != "1\tinside\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestOpen_RefusesAMissingDirectory(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("Open of a missing directory succeeded")
	}
}

func TestConstructors_RefuseANilSandboxAndBadCaps(t *testing.T) {
	f := newFixture(t)
	for name, err := range map[string]error{
		"read nil":       second(NewRead(nil)),
		"write nil":      second(NewWrite(nil)),
		"edit nil":       second(NewEdit(nil)),
		"multi nil":      second(NewMultiEdit(nil)),
		"read cap":       second(NewRead(f.sb, WithReadMaxBytes(1))),
		"write cap":      second(NewWrite(f.sb, WithWriteMaxBytes(0))),
		"edit cap":       second(NewEdit(f.sb, WithWriteMaxBytes(-1))),
		"multi edit cap": second(NewMultiEdit(f.sb, WithWriteMaxBytes(0))),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func second[T any](_ T, err error) error { return err }
