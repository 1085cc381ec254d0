package providertest

import (
	"embed"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/sse"
)

//go:embed testdata
var generic embed.FS

// notEventStream replays a 2xx response that is not an event stream and
// checks it fails at once with a non-retryable error that says what came
// back, rather than as a "truncated stream" the retrying model resends.
func (s Suite) notEventStream(t *testing.T, rec Recording, want Want, quote string) {
	t.Helper()
	srv := newServer(t, rec)
	res := Collect(s.New(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: userAsk("Hello")}))
	check(t, res, want)
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) {
		return // check reported it
	}
	// A JSON error body keeps the API's own kind; anything else is final.
	if want.Err == helikon.ModelOther && me.Transient() {
		t.Errorf("a %d response that is not an event stream is retryable: %v", rec.Status, me)
	}
	if quote != "" && !strings.Contains(me.Error(), quote) {
		t.Errorf("error %q does not quote %q", me.Error(), quote)
	}
}

// genericNotEventStream runs the cases every HTTP adapter shares: a
// gateway's HTML page and an empty body, each with status 200.
func (s Suite) genericNotEventStream(t *testing.T) {
	data, err := generic.ReadFile("testdata/nginx_502_as_200.http")
	if err != nil {
		t.Fatal(err)
	}
	page, err := parse("nginx_502_as_200.http", data)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("GatewayHTMLPage", func(t *testing.T) {
		s.notEventStream(t, page, Want{Err: helikon.ModelOther, StatusCode: http.StatusOK}, `text/html`)
		s.notEventStream(t, page, Want{Err: helikon.ModelOther, StatusCode: http.StatusOK}, `502 Bad Gateway`)
	})
	t.Run("EmptyBody", func(t *testing.T) {
		s.notEventStream(t, Recording{Status: http.StatusOK, Header: http.Header{}},
			Want{Err: helikon.ModelOther, StatusCode: http.StatusOK}, "empty body")
	})
}

// oversizedEvent serves the first event of the text recording and then a
// data line that never ends. An adapter built with a small event limit
// ([Suite.NewLimited]) must stop reading with a non-retryable error.
func (s Suite) oversizedEvent(t *testing.T) {
	if s.NewLimited == nil {
		t.Skip("the suite has no NewLimited constructor for this adapter")
	}
	rec, err := s.load(s.Text.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	first := rec.events()[0]
	const limit = 64 << 10
	start := []byte("data: ")
	if s.OversizedEvent != nil {
		start = s.OversizedEvent(limit)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", rec.contentType())
		_, _ = w.Write(first)
		_, _ = w.Write(start)
		chunk := []byte(strings.Repeat("a", 32<<10))
		// Stop once the client has gone, or after far more than the limit.
		for sent := 0; sent < 64*limit && r.Context().Err() == nil; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	res := Collect(s.NewLimited(t, srv.URL, limit).Invoke(t.Context(), &helikon.ModelRequest{Messages: userAsk("Hello")}))
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) || !errors.Is(res.Err, sse.ErrEventTooLarge) {
		t.Fatalf("err = %v, want a ModelError wrapping sse.ErrEventTooLarge", res.Err)
	}
	if me.Transient() {
		t.Errorf("an oversized event is retryable: %v", me)
	}
}
