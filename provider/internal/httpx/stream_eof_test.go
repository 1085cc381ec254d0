package httpx

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/paigasus/helikon"
)

func TestStreamToEOF_AtEOFDecidesWhetherTheStreamIsWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte("data: {}\n\n"))
	}))
	defer srv.Close()
	e := Endpoint{Provider: "p", Client: srv.Client(), URL: srv.URL, Header: http.Header{}}
	for _, whole := range []bool{true, false} {
		var got error
		calls := 0
		yield := func(ev helikon.ModelEvent, err error) bool { got = err; return err == nil }
		StreamToEOF(t.Context(), e, []byte("{}"), yield, func([]byte) bool { return true }, func() bool { calls++; return whole })
		if calls != 1 {
			t.Errorf("whole=%v: atEOF called %d times", whole, calls)
		}
		if whole && got != nil {
			t.Errorf("a whole stream failed: %v", got)
		}
		if !whole && !errors.Is(got, ErrStreamTruncated) {
			t.Errorf("a cut stream: err = %v, want ErrStreamTruncated", got)
		}
	}
}
