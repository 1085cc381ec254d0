package starlarktool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/starlarktool"
)

// A script tool runs in a worker process; a run that hits a cap is a
// typed error naming it, and the program goes on. (The program's main, or
// TestMain here, called starlarktool.WorkerMain first.)
func ExampleNew() {
	params := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	tool, err := starlarktool.New("double", "Doubles n", params, "double.star", `
def run(args):
    if args["n"] < 0:
        return len("x" * (1 << 29))  # 512 MiB in one step
    return {"n": args["n"] * 2}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	tc := &helikon.ToolContext{Context: context.Background()}
	out, err := tool.Call(tc, json.RawMessage(`{"n": 21}`))
	fmt.Println(string(out.Content), err)
	_, err = tool.Call(tc, json.RawMessage(`{"n": -1}`))
	var se *starlarktool.ScriptError
	if errors.As(err, &se) {
		fmt.Println("stopped by the", se.Limit, "cap")
	}
	// Output:
	// {"n":42} <nil>
	// stopped by the memory cap
}
