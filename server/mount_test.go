package server_test

import (
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

func TestWithMount_ServesBehindTheAuthenticatorWithThePrincipal(t *testing.T) {
	var seen []string
	var flushes bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, server.PrincipalOf(r.Context()).ID)
		// Streaming handlers that assert http.Flusher (a2a-go's) need one.
		_, flushes = w.(http.Flusher)
		io.WriteString(w, "mounted "+r.URL.Path)
	})
	_, ts := start(t, []helikon.Agent{newAgent(t, "echo", 0)}, bearerAuth, server.WithMount("/a2a/", h))
	tests := []struct {
		token      string
		wantStatus int
	}{
		{"alice", http.StatusOK},
		{"", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/a2a/echo/x", nil)
		if tt.token != "" {
			req.Header.Set("Authorization", "Bearer "+tt.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus {
			t.Errorf("token %q: status %d, want %d (%s)", tt.token, resp.StatusCode, tt.wantStatus, body)
		}
	}
	if !flushes {
		t.Error("the mount's ResponseWriter is not an http.Flusher")
	}
	if len(seen) != 1 || seen[0] != "alice" {
		t.Errorf("the mount saw principals %q, want only alice (the refused request must not reach it)", seen)
	}
}

func TestWithMount_APrefixThatTakesTheServersRoutesIsRefused(t *testing.T) {
	h := http.NotFoundHandler()
	for _, prefix := range []string{"/", "/agents/", "/runs/", "/ui/", "/openapi.json/", "a2a/", "/a2a", ""} {
		_, err := server.New([]helikon.Agent{newAgent(t, "echo", 0)}, server.WithMount(prefix, h))
		if !errors.Is(err, server.ErrConfig) {
			t.Errorf("prefix %q: error %v, want ErrConfig", prefix, err)
		}
	}
	if _, err := server.New([]helikon.Agent{newAgent(t, "echo", 0)}, server.WithMount("/a2a/", nil)); !errors.Is(err, server.ErrConfig) {
		t.Errorf("nil handler: %v", err)
	}
}
