package anthropic

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"github.com/paigasus/helikon/provider/providertest"
)

// The fast path must translate every recording exactly as encoding/json
// does, with and without a structured-output tool in play.
func TestFastPath_TranslatesEveryRecordingLikeTheGeneralPath(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.sse")
	if len(files) == 0 {
		t.Fatal("no recordings in testdata")
	}
	for _, f := range files {
		for _, tool := range []string{"", "get_weather"} {
			t.Run(f+"/"+tool, func(t *testing.T) {
				rec, err := providertest.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				fe, ferr := replay(t, &decoder{outputTool: tool}, string(rec.Body))
				se, serr := replay(t, &decoder{outputTool: tool, slowOnly: true}, string(rec.Body))
				if len(fe) == 0 || fmt.Sprint(ferr) != fmt.Sprint(serr) || !reflect.DeepEqual(fe, se) {
					t.Errorf("fast path %d events %v, general path %d events %v", len(fe), ferr, len(se), serr)
				}
			})
		}
	}
}

// replay runs body through d as Invoke does and returns what it yielded.
func replay(t *testing.T, d *decoder, body string) (evs []helikon.ModelEvent, err error) {
	t.Helper()
	yield := func(ev helikon.ModelEvent, e error) bool {
		if e != nil {
			err = e
			return false
		}
		evs = append(evs, ev)
		return true
	}
	httpx.ReadEvents(t.Context(), providerName, strings.NewReader(body), 0, yield, func(b []byte) bool { return d.handle(b, yield) })
	return evs, err
}
