package providertest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// server replays one recording per request and keeps the request bodies.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func newServer(t *testing.T, recs ...Recording) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		if n >= len(recs) {
			http.Error(w, "providertest: no recording left for this request", http.StatusTeapot)
			return
		}
		recs[n].serve(w)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() ([][]byte, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...), append([]string(nil), s.paths...)
}
