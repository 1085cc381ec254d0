package openai

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"github.com/paigasus/helikon/provider/providertest"
)

type replayed struct {
	events []helikon.ModelEvent
	err    string
}

func replayWith(t *testing.T, body []byte, handle func([]byte, func(helikon.ModelEvent, error) bool) bool) replayed {
	t.Helper()
	var r replayed
	yield := func(ev helikon.ModelEvent, err error) bool {
		if err != nil {
			r.err = err.Error()
			return false
		}
		r.events = append(r.events, ev)
		return true
	}
	httpx.ReadEvents(t.Context(), providerName, strings.NewReader(string(body)), 0, yield, func(b []byte) bool { return handle(b, yield) })
	return r
}

// The fast path must translate every recording exactly as encoding/json
// does.
func TestFastPath_TranslatesEveryRecordingLikeTheGeneralPath(t *testing.T) {
	for _, dir := range []string{"chat", "responses"} {
		files, _ := filepath.Glob("testdata/" + dir + "/*.sse")
		if len(files) == 0 {
			t.Fatalf("no recordings in testdata/%s", dir)
		}
		for _, f := range files {
			t.Run(f, func(t *testing.T) {
				rec, err := providertest.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				var fast, slow replayed
				if dir == "chat" {
					fd, sd := &chatDecoder{}, &chatDecoder{slowOnly: true}
					fast, slow = replayWith(t, rec.Body, fd.handle), replayWith(t, rec.Body, sd.handle)
				} else {
					fd, sd := &responsesDecoder{}, &responsesDecoder{slowOnly: true}
					fast, slow = replayWith(t, rec.Body, fd.handle), replayWith(t, rec.Body, sd.handle)
				}
				if len(fast.events) == 0 || !reflect.DeepEqual(fast, slow) {
					t.Errorf("fast path %d events %q, general path %d events %q", len(fast.events), fast.err, len(slow.events), slow.err)
				}
			})
		}
	}
}
