package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon/mcp"
)

// brokenTransport cannot connect.
type brokenTransport struct{}

func (brokenTransport) Connect(context.Context) (sdk.Connection, error) {
	return nil, errors.New("socket refused")
}

// The kinds not pinned elsewhere (Connect, Spawn, Bind and Service have
// their own tests): Serve and Other.
func TestError_KindsOfServeAndOther(t *testing.T) {
	s, err := mcp.NewAgentServer(echoAgent{name: "echo"})
	if err != nil {
		t.Fatal(err)
	}
	_, errNilAgent := mcp.NewAgentServer(nil)
	_, errNilCmd := mcp.ConnectStdio(context.Background(), nil)
	_, errNilTransport := mcp.Connect(context.Background(), nil)
	for _, tc := range []struct {
		name string
		err  error
		kind mcp.ErrorKind
		want string
	}{
		{"serving over a transport that fails", s.ServeTransport(context.Background(), brokenTransport{}), mcp.KindServe, "socket refused"},
		{"nil agent", errNilAgent, mcp.KindOther, "nil agent"},
		{"nil command", errNilCmd, mcp.KindOther, "nil command"},
		{"nil transport", errNilTransport, mcp.KindOther, "nil transport"},
		{"client transport that fails", func() error { _, err := mcp.Connect(context.Background(), brokenTransport{}); return err }(), mcp.KindConnect, "socket refused"},
	} {
		if !mcp.IsKind(tc.err, tc.kind) || !strings.Contains(tc.err.Error(), tc.want) || !strings.HasPrefix(tc.err.Error(), "mcp: "+string(tc.kind)) {
			t.Errorf("%s: err = %v, want kind %s mentioning %q", tc.name, tc.err, tc.kind, tc.want)
		}
	}
}
