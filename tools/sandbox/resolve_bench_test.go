package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/governance"
	"github.com/paigasus/helikon/internal/benchpair"
)

// lexicalWrite is the Write tool as the permission check saw it before
// paths were resolved through symlinks: the path cleaned, nothing looked
// up. It is the baseline of BenchmarkWritePermissionCheck.
type lexicalWrite struct{ *Write }

func (l lexicalWrite) FileAccess(args json.RawMessage) ([]governance.FileAccess, error) {
	var a struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, err
	}
	c, err := l.sb.clean(l.Name(), a.FilePath)
	if err != nil {
		return []governance.FileAccess{{Path: a.FilePath, Write: true}}, nil
	}
	return []governance.FileAccess{{Path: c, Write: true}}, nil
}

type noAsk struct{}

func (noAsk) Ask(context.Context, helikon.PermissionRequest, string, string) helikon.Verdict {
	return helikon.Verdict{Reason: "no"}
}

// BenchmarkWritePermissionCheck pairs the whole permission check of one
// Write call (arguments parsed, the default guards and a DenyEdit rule
// matched) with the file's path resolved through symlinks against the
// same check on the lexical path, for an existing file at depths 1, 3 and
// 8 and a file to be created under a missing directory.
func BenchmarkWritePermissionCheck(b *testing.B) {
	f, paths := depthFixture(b)
	defer f.sb.Close()
	w, err := NewWrite(f.sb)
	if err != nil {
		b.Fatal(err)
	}
	rc := helikon.NewRunContext(governance.WithDenyRules(governance.DenyEdit("dist/**")))
	ctx := context.Background()
	check := func(tool helikon.Tool, args json.RawMessage) func() {
		req := helikon.PermissionRequest{Tool: "Write", CallID: "c", Args: args, Effect: helikon.Write, Impl: tool}
		return func() {
			if v := rc.Authorizer().Authorize(ctx, rc, req, noAsk{}); !v.Allowed {
				b.Fatalf("refused: %s", v.Reason)
			}
		}
	}
	for _, p := range paths {
		args := json.RawMessage(fmt.Sprintf(`{"file_path":%q,"content":"x"}`, p))
		b.Run(fmt.Sprintf("depth=%d", strings.Count(p, "/")+1), func(b *testing.B) {
			b.ReportAllocs()
			benchpair.Run(b, "lexical", check(lexicalWrite{w}, args), "resolved", check(w, args))
		})
	}
}

// BenchmarkResolve pairs resolving a path through symlinks a component
// at a time (an Lstat per prefix, each walked from the root by os.Root)
// with resolve, which first asks the kernel in one openat2 whether the
// path holds a link at all.
func BenchmarkResolve(b *testing.B) {
	f, paths := depthFixture(b)
	defer f.sb.Close()
	for _, p := range paths {
		b.Run(fmt.Sprintf("depth=%d", strings.Count(p, "/")+1), func(b *testing.B) {
			b.ReportAllocs()
			benchpair.Run(b, "walk", func() {
				if r, err := f.sb.walkLinks(p, false); err != nil || r != p {
					b.Fatal(r, err)
				}
			}, "resolve", func() {
				if r, err := f.sb.resolve(p); err != nil || r != p {
					b.Fatal(r, err)
				}
			})
		})
	}
}

// depthFixture makes files at depths 1, 3 and 8, and returns them with a
// file to create under a missing directory.
func depthFixture(b *testing.B) (*fixture, []string) {
	f := newFixture(b)
	deep := strings.Repeat("d/", 7) + "f.go"
	for _, p := range []string{"f.go", "a/b/f.go", deep} {
		full := filepath.Join(f.sb.Dir(), p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return f, []string{"f.go", "a/b/f.go", deep, "a/new/dir/f.go"}
}
