package bash

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/tools/sandbox"
)

// openSandbox opens a workspace in a temporary directory of the test.
func openSandbox(t testing.TB) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// hostTool returns the tool on a HostBackend of sb, or skips where no
// HostBackend can run.
func hostTool(t testing.TB, sb *sandbox.Sandbox, hopts []HostOption, opts ...Option) *Bash {
	t.Helper()
	be, err := NewHostBackend(sb, hopts...)
	if errors.Is(err, ErrUnsupportedPlatform) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(be, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runTool calls the tool and decodes its result.
func runTool(t *testing.T, ctx context.Context, b *Bash, args Args) (Result, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	out, err := b.Call(helikon.NewToolContext(ctx, nil, "c1", "Bash"), raw)
	if err != nil {
		return Result{}, err
	}
	var r Result
	if err := json.Unmarshal(out.Content, &r); err != nil {
		t.Fatalf("output %s: %v", out.Content, err)
	}
	return r, nil
}
