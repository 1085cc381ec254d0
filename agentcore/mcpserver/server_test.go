package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/agentcore"
	"github.com/paigasus/helikon/agentcore/mcpserver"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/session/sqlite"
)

// platform stands in for AgentCore in front of the container: it adds the
// Mcp-Session-Id it generated to every request.
type platform struct {
	base      http.RoundTripper
	sessionID string
}

func (p platform) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Mcp-Session-Id", p.sessionID)
	return p.base.RoundTrip(r)
}

func callAgent(t *testing.T, url, sessionID, input string) string {
	t.Helper()
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "agentcore-test", Version: "1"}, nil)
	hc := &http.Client{Transport: platform{http.DefaultTransport, sessionID}}
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "greeter", Arguments: map[string]any{"input": input}})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if res.IsError {
		t.Fatalf("error result: %+v", res.Content)
	}
	return res.Content[0].(*sdk.TextContent).Text
}

func TestMCP_PlatformSessionIDIsTheConversation(t *testing.T) {
	model := mock.Scripted(mock.Text("Hello, Ada."), mock.Text("You are Ada."), mock.Text("Hello, stranger."))
	agent, err := helikon.NewAgent("greeter", model, helikon.WithDescription("Greets."))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(agent, []agentcore.Option{agentcore.WithSessions(sqliteSessions(t))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	// Two separate connections, as two stateless requests through the
	// platform would be, carrying one platform session id.
	if got := callAgent(t, ts.URL, sessionID, "I am Ada."); got != "Hello, Ada." {
		t.Fatalf("first call = %q", got)
	}
	if got := callAgent(t, ts.URL, sessionID, "Who am I?"); got != "You are Ada." {
		t.Fatalf("second call = %q", got)
	}
	var texts []string
	for _, m := range model.Requests()[1].Messages {
		texts = append(texts, m.Text())
	}
	if got := strings.Join(texts, " | "); got != "I am Ada. | Hello, Ada. | Who am I?" {
		t.Errorf("the second call saw %q; want the first call's turn before it", got)
	}
	// Another platform session is another conversation.
	callAgent(t, ts.URL, strings.Repeat("q", 36), "Hi")
	if n := len(model.Requests()[2].Messages); n != 1 {
		t.Errorf("a new session saw %d messages", n)
	}
}

// The MCP protocol's /mcp answers what it refuses as a JSON-RPC error
// response (application/json, the stdio transport's codes), never the
// go-sdk's plain text; here with the Mcp-Session-Id the platform adds.
func TestMCP_RefusalsAreJSONRPCErrors(t *testing.T) {
	agent, err := helikon.NewAgent("greeter", mock.Scripted(), helikon.WithDescription("Greets."))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(agent, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	tests := []struct {
		name, body, accept string
		status             int
		code               int64
		id                 string
	}{
		{"a body that is not JSON", `{"jsonrpc":"2.0",`, "application/json, text/event-stream", 400, -32700, "null"},
		{"JSON that is no message", `{"id":3,"method":"tools/list"}`, "application/json, text/event-stream", 400, -32600, "3"},
		{"an unknown method", `{"jsonrpc":"2.0","id":4,"method":"no/such/method","params":{}}`, "application/json, text/event-stream", 400, -32601, "4"},
		{"Accept without the event stream", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, "application/json", 406, -32600, "null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", tt.accept)
			req.Header.Set("Mcp-Session-Id", sessionID)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var got struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code int64 `json:"code"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatalf("%s: the body is not JSON: %v", resp.Status, err)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" ||
				got.JSONRPC != "2.0" || got.Error.Code != tt.code || string(got.ID) != tt.id {
				t.Errorf("%s %s %+v; want %d, JSON-RPC error %d, id %s", resp.Status, resp.Header.Get("Content-Type"), got, tt.status, tt.code, tt.id)
			}
		})
	}
}

// The MCP protocol's other paths answer the agent server's JSON error shape.
func TestServer_UnknownRouteIsTheJSONErrorShape(t *testing.T) {
	agent, err := helikon.NewAgent("greeter", mock.Scripted(), helikon.WithDescription("Greets."))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(agent, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/invocations")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got agentcore.ErrorBody
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusNotFound || got.Error == nil || got.Error.Code != "not_found" {
		t.Fatalf("%s %+v", resp.Status, got.Error)
	}
}

const sessionID = "0123456789abcdef0123456789abcdef-01" // 35 characters

// sqliteSessions is a session provider on one SQLite file.
func sqliteSessions(t *testing.T) agentcore.SessionFunc {
	t.Helper()
	db, err := sqlite.OpenDB(context.Background(), filepath.Join(t.TempDir(), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(ctx context.Context, id string) (helikon.Session, error) {
		if id == "" {
			return helikon.NewMemorySession(), nil
		}
		return sqlite.Open(ctx, db, id)
	}
}
