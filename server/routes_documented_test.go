package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// bareServer is a server of one agent, shut down at the test's end.
func bareServer(t *testing.T) *Server {
	t.Helper()
	agent, err := helikon.NewAgent("greeter", mock.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New([]helikon.Agent{agent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}

// routeMethods returns every "METHOD pattern" s answers on its API routes.
func routeMethods(s *Server) []string {
	var out []string
	for _, r := range s.apiRoutes() {
		for m := range r.methods {
			out = append(out, m+" "+r.pattern)
		}
	}
	slices.Sort(out)
	return out
}

// TestOpenAPI_DocumentsEveryRouteAndNoOther holds the document to the
// routes the mux serves, each method of each: the conformance tests
// (-tags openapi) check the traffic of the routes they send requests to,
// so a route none of them called could be left out of the document and
// nothing failed.
func TestOpenAPI_DocumentsEveryRouteAndNoOther(t *testing.T) {
	s := bareServer(t)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(s.openapi, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for m := range ops {
			documented = append(documented, strings.ToUpper(m)+" "+path)
		}
	}
	served := routeMethods(s)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("%s is served but not in the OpenAPI document", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("%s is in the OpenAPI document but not served", d)
		}
	}
}

// TestDocs_ServerRouteTableListsEveryRoute holds docs/server.md's table of
// routes to the routes the mux serves: it lacked a run's model calls and
// its fork, which only the dev UI's page described.
func TestDocs_ServerRouteTableListsEveryRoute(t *testing.T) {
	raw, err := os.ReadFile("../docs/server.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z]+) (/[^` ]*)`")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		listed = append(listed, m[1]+" "+m[2])
	}
	for _, r := range routeMethods(bareServer(t)) {
		if !slices.Contains(listed, r) {
			t.Errorf("docs/server.md's route table lacks %s", r)
		}
	}
}

// TestWithMount_RefusesThePrefixOfEveryRoute holds checkMount's reserved
// first segments to the route table: a mount under a route's first
// segment would shadow the route, or make the mux panic on patterns that
// overlap (a mount at /agents/x/ beside /agents/{name}/runs).
func TestWithMount_RefusesThePrefixOfEveryRoute(t *testing.T) {
	agent, err := helikon.NewAgent("greeter", mock.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	h := http.NotFoundHandler()
	for _, r := range bareServer(t).apiRoutes() {
		first := strings.SplitN(r.pattern[1:], "/", 2)[0]
		s, err := New([]helikon.Agent{agent}, WithMount("/"+first+"/x/", h))
		if err == nil {
			_ = s.Shutdown(context.Background())
		}
		if !errors.Is(err, ErrConfig) {
			t.Errorf("a mount at /%s/x/ beside %s: error %v, want ErrConfig", first, r.pattern, err)
		}
	}
}
