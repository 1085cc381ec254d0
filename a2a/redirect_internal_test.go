package a2a

import (
	"net/url"
	"testing"
)

// TestOrigin_SpellsOutTheDefaultPortAndIgnoresCase pins what one origin
// is: a redirect from http://h to http://h:80/x stays, one to https://h
// or to another port leaves.
func TestOrigin_SpellsOutTheDefaultPortAndIgnoresCase(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://agent.example/rpc", "http://agent.example:80/other", true},
		{"https://agent.example/", "https://AGENT.example:443/", true},
		{"HTTP://agent.example/", "http://agent.example/", true},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true},
		{"http://agent.example/", "https://agent.example/", false},
		{"http://agent.example/", "http://agent.example:8080/", false},
		{"http://agent.example/", "http://agent.example.evil/", false},
		{"http://[::1]:8080/", "http://[::1]/", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := origin(a) == origin(b); got != tc.same {
			t.Errorf("%s and %s: same origin %v (%s, %s), want %v", tc.a, tc.b, got, origin(a), origin(b), tc.same)
		}
	}
}
