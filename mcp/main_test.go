package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// serverModeEnv makes the test binary act as a misbehaving MCP server
// instead of running tests: a raw JSON-RPC loop written here, so that the
// client meets bytes no SDK would send.
const serverModeEnv = "HELIKON_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	os.Exit(m.Run())
}

// fakeServerCmd returns a command running the test binary as a fake server.
func fakeServerCmd(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serverModeEnv+"="+mode)
	return cmd
}

// fakeServerCmdPath returns a command for an executable that may not exist.
func fakeServerCmdPath(path string) *exec.Cmd { return exec.Command(path) }

// fakeServer answers initialize and tools/list, then misbehaves as mode says:
//
//	garbage     answers initialize with bytes that are not JSON
//	badschema   lists a tool whose input schema is not an object schema
//	crash       exits mid-call, saying why on stderr
//	garblecall  answers a call with bytes that are not JSON
//	badrelist   lists a valid tool first, an invalid one on the next list
//	hang        never answers a call, ignores SIGTERM and stdin's end
//	grandchild  starts a long-lived child of its own, then serves
//	agent...    see agentServerMain
func fakeServer(mode string) int {
	if code, ok := agentServerMain(mode); ok {
		return code
	}
	if mode == "hang" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "grandchild" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			return 2
		}
		fmt.Fprintf(os.Stderr, "grandchild %d\n", child.Process.Pid)
		if f := os.Getenv("HELIKON_MCP_GRANDCHILD_FILE"); f != "" {
			_ = os.WriteFile(f, fmt.Appendf(nil, "%d", child.Process.Pid), 0o600)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	lists := 0
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification, or noise
		}
		reply := func(result any) {
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
		}
		switch req.Method {
		case "initialize":
			if mode == "garbage" {
				fmt.Println("this is not JSON-RPC {{{")
				continue
			}
			reply(map[string]any{
				"protocolVersion": "2025-06-18",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "fake-" + mode, "version": "0"},
			})
		case "tools/list":
			schema := map[string]any{"type": "object"}
			if mode == "badschema" || mode == "badrelist" && lists > 0 {
				schema = map[string]any{"type": "string"}
			}
			lists++
			reply(map[string]any{"tools": []any{map[string]any{"name": "work", "description": "Does work.", "inputSchema": schema}}})
		case "tools/call":
			switch mode {
			case "crash":
				fmt.Fprintln(os.Stderr, "fatal: out of cheese")
				return 3
			case "hang":
				continue // never answer
			case "garblecall":
				fmt.Println(`{"jsonrpc":"2.0","id":`, "garbage")
				continue
			}
			reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": "worked"}}})
		default:
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
	if mode == "hang" {
		time.Sleep(time.Hour) // outlive stdin; only SIGKILL ends this
	}
	return 0
}
