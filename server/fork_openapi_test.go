//go:build openapi

package server_test

import (
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
)

// TestOpenAPI_CallsAndForkAnswerAsDocumented checks the calls and fork
// routes' requests and answers, refusals included, against the document.
func TestOpenAPI_CallsAndForkAnswerAsDocumented(t *testing.T) {
	_, ts := start(t, []helikon.Agent{lookupAgent(t)})
	v, _ := openAPIValidator(t, ts.URL)
	id := runTo(t, ts.URL, "&capture=calls", "find it")
	for _, c := range []struct{ method, path, body string }{
		{http.MethodGet, "/calls", ""},
		{http.MethodPost, "/fork", `{"call":1,"tool_results":{"k1":"edited"}}`},
		{http.MethodPost, "/fork", `{"call":0,"user_message":"again"}`},
		{http.MethodPost, "/fork", `{"call":9}`},
		{http.MethodPost, "/fork", `{"call":0,"instructions":"x"}`},
		{http.MethodPost, "/fork", `{"call":0,"tool_results":{"k1":"x"}}`},
	} {
		exchange(t, v, c.method, ts.URL+"/agents/finder/runs/"+id+c.path, c.body, "Content-Type", "application/json")
	}
}
