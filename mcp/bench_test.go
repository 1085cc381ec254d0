package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mcp"
)

// pairedCalls runs the adapter's call and the go-sdk's direct call on the
// same session in alternating order, and reports each one's time and the
// ratio: the adapter's overhead, measured side by side.
func pairedCalls(b *testing.B, c *mcp.Client, tool helikon.Tool, remote string, args string, want string) {
	ctx := context.Background()
	raw := json.RawMessage(args)
	var direct map[string]any
	_ = json.Unmarshal(raw, &direct)
	tc := helikon.NewToolContext(ctx, nil, "bench", tool.Name())
	adapter := func() {
		out, err := tool.Call(tc, raw)
		if err != nil || string(out.Content) != `"`+want+`"` {
			b.Fatalf("adapter: %s %v", out.Content, err)
		}
	}
	goSDK := func() {
		res, err := c.Session().CallTool(ctx, &sdk.CallToolParams{Name: remote, Arguments: direct})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != want {
			b.Fatalf("go-sdk: %+v %v", res, err)
		}
	}
	b.ReportAllocs()
	benchpair.Run(b, "gosdk", goSDK, "adapter", adapter)
}

// BenchmarkMCPToolCall: a trivial tool over the in-memory transport, called
// through the adapter and with the go-sdk client directly.
func BenchmarkMCPToolCall(b *testing.B) {
	c := connectInMemory(b, goServer(1, 0))
	pairedCalls(b, c, toolNamed(b, c, "tool-0"), "tool-0", `{"text":"hi"}`, "hi")
}

// BenchmarkMCPStdioEcho: the stdio round trip to server-everything's echo
// tool, through the adapter and with the go-sdk client directly.
func BenchmarkMCPStdioEcho(b *testing.B) {
	c, err := mcp.ConnectStdio(context.Background(), everything(b))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pairedCalls(b, c, toolNamed(b, c, "echo"), "echo", `{"message":"hi"}`, "Echo: hi")
}

// serveOverPipes serves s on a pair of pipes, through ServeIO (guarded) or
// the go-sdk's own IOTransport, and returns a go-sdk client session on the
// other ends; both end with the benchmark.
func serveOverPipes(b *testing.B, s *mcp.AgentServer, guarded bool) *sdk.ClientSession {
	b.Helper()
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		if guarded {
			served <- s.ServeIO(ctx, inR, outW)
		} else {
			served <- s.ServeTransport(ctx, &sdk.IOTransport{Reader: inR, Writer: outW})
		}
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		cancel()
		inW.Close()
		outW.Close()
		<-served
	})
	return cs
}

// BenchmarkAgentServerStdioCall: one tools/call round trip over newline-
// delimited JSON on pipes, served through ServeIO's line guard and through
// the go-sdk's IOTransport alone: the guard's cost per message, paired.
func BenchmarkAgentServerStdioCall(b *testing.B) {
	s, err := mcp.NewAgentServer(echoAgent{name: "echo"})
	if err != nil {
		b.Fatal(err)
	}
	plain, guarded := serveOverPipes(b, s, false), serveOverPipes(b, s, true)
	ctx := context.Background()
	call := func(cs *sdk.ClientSession) func() {
		return func() {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"input": "hi"}})
			if err != nil || res.IsError {
				b.Fatalf("call: %+v %v", res, err)
			}
		}
	}
	b.ReportAllocs()
	benchpair.Run(b, "gosdk", call(plain), "guarded", call(guarded))
}
