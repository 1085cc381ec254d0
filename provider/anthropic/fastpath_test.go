package anthropic

import (
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
	for _, f := range files {
		for _, tool := range []string{"", "get_weather"} {
			t.Run(f+"/"+tool, func(t *testing.T) {
				rec, err := providertest.Load(f)
				if err != nil {
					t.Fatal(err)
				}
				run := func(d *decoder) (evs []helikon.ModelEvent, errText string) {
					yield := func(ev helikon.ModelEvent, err error) bool {
						if err != nil {
							errText = err.Error()
							return false
						}
						evs = append(evs, ev)
						return true
					}
					httpx.ReadEvents(t.Context(), providerName, strings.NewReader(string(rec.Body)), yield, func(b []byte) bool { return d.handle(b, yield) })
					return evs, errText
				}
				fe, ferr := run(&decoder{outputTool: tool})
				se, serr := run(&decoder{outputTool: tool, slowOnly: true})
				if len(fe) == 0 || ferr != serr || !reflect.DeepEqual(fe, se) {
					t.Errorf("fast path %d events %q, general path %d events %q", len(fe), ferr, len(se), serr)
				}
			})
		}
	}
}
