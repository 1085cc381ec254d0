package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
)

// TestServer_WithoutAuthRefusesCrossSiteRequestsThatChangeState pins the
// CSRF boundary of a server without an authenticator (helikon serve on
// 127.0.0.1): another site's page cannot start a run with a simple
// text/plain POST, while the dev UI's same-origin requests and
// non-browser clients (no Sec-Fetch-Site, no Origin) still can.
func TestServer_WithoutAuthRefusesCrossSiteRequestsThatChangeState(t *testing.T) {
	_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)})
	for _, tt := range []struct {
		name    string
		host    string
		headers []string
		status  int
	}{
		{"another site's page", "", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site", "Content-Type", "text/plain"}, http.StatusForbidden},
		{"an old browser, Origin only", "", []string{"Origin", "https://evil.example", "Content-Type", "text/plain"}, http.StatusForbidden},
		{"the dev UI, same origin", "", []string{"Origin", ts.URL, "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json"}, http.StatusOK},
		{"a non-browser client", "", []string{"Content-Type", "application/json"}, http.StatusOK},
		// DNS rebinding: the attacker's domain resolves to 127.0.0.1, so
		// its page is same-origin to the browser; only Host tells.
		{"a rebound domain's page", "rebind.evil.example:8080", []string{"Origin", "http://rebind.evil.example:8080", "Sec-Fetch-Site", "same-origin", "Content-Type", "text/plain"}, http.StatusForbidden},
		{"a rebound domain's request, Sec-Fetch-Site only", "rebind.evil.example:8080", []string{"Sec-Fetch-Site", "same-origin"}, http.StatusForbidden},
		{"the dev UI at localhost", "localhost:8080", []string{"Origin", "http://localhost:8080", "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json"}, http.StatusOK},
		{"the dev UI at [::1]", "[::1]:8080", []string{"Origin", "http://[::1]:8080", "Sec-Fetch-Site", "same-origin", "Content-Type", "application/json"}, http.StatusOK},
		{"a non-browser client naming a host", "helikon.internal:8080", []string{"Content-Type", "application/json"}, http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/agents/greeter/runs", strings.NewReader(`{"input":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		if tt.host != "" {
			req.Host = tt.host
		}
		for i := 0; i < len(tt.headers); i += 2 {
			req.Header.Set(tt.headers[i], tt.headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}
