package anthropic_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/providertest"
)

// No public recording has two tool_use blocks in one streamed turn, so this
// test derives one from testdata/tool_call.sse: its tool_use block (index
// 1) is copied as block 2 with another id, and the two blocks' deltas are
// interleaved. Every event keeps the recorded shape; the adapter must route
// each input_json_delta to its block's call by index.
func TestMessages_SeveralToolUseBlocksKeepTheirCallIDs(t *testing.T) {
	rec, err := providertest.Load("testdata/tool_call.sse")
	if err != nil {
		t.Fatal(err)
	}
	var head, block, tail []string
	for ev := range strings.SplitSeq(strings.TrimSpace(string(rec.Body)), "\n\n") {
		switch {
		case strings.Contains(ev, `"index":1`):
			block = append(block, ev)
		case len(block) == 0:
			head = append(head, ev)
		default:
			tail = append(tail, ev)
		}
	}
	second := func(ev string) string {
		ev = strings.Replace(ev, `"index":1`, `"index":2`, 1)
		return strings.Replace(ev, "toolu_01RaX2WYWRWCbaeFHssmGJXG", "toolu_second", 1)
	}
	stream := head
	for _, ev := range block {
		stream = append(stream, ev, second(ev))
	}
	stream = append(stream, tail...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Join(stream, "\n\n")+"\n\n")
	}))
	defer srv.Close()

	args := map[string]string{}
	names := map[string]string{}
	for ev, err := range newModel(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("x")}) {
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			args[d.CallID] += d.ArgsDelta
			if d.Name != "" {
				names[d.CallID] = d.Name
			}
		}
	}
	const want = `{"city": "San Francisco", "units": "fahrenheit"}`
	if len(args) != 2 || args["toolu_01RaX2WYWRWCbaeFHssmGJXG"] != want || args["toolu_second"] != want || names["toolu_second"] != "get_weather" {
		t.Errorf("calls = %v names = %v", args, names)
	}
}
