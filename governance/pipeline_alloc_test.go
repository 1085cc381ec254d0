package governance

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/paigasus/helikon"
)

// TestAuthorize_TheCallViewIsNotAllocatedWithoutTheWrittenFileGuard pins
// that the pipeline's view of a call stays on the stack when no
// written-file guard is installed: handing it through the guard's
// interface by pointer made it escape, one allocation for every tool call
// of every run (4cb0e10: S2's 40 calls, 658 → 698 allocations).
func TestAuthorize_TheCallViewIsNotAllocatedWithoutTheWrittenFileGuard(t *testing.T) {
	ctx := context.Background()
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")))
	az := rc.Authorizer()
	req := helikon.PermissionRequest{Tool: "add", CallID: "c1", Args: json.RawMessage(`{"a":1,"b":2}`), Effect: helikon.ReadOnly}
	if v := az.Authorize(ctx, rc, req, nil); !v.Allowed {
		t.Fatalf("a read-only call was refused: %+v", v)
	}
	if n := testing.AllocsPerRun(100, func() { az.Authorize(ctx, rc, req, nil) }); n != 0 {
		t.Fatalf("Authorize of a read-only call allocates %v times, want 0", n)
	}
}
