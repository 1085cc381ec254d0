package bedrock

import (
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
)

// deltaPayloads are contentBlockDelta payloads: recorded ones (see
// testdata) and the shapes the fast path must hand to encoding/json or
// read exactly as it would.
var deltaPayloads = []string{
	`{"contentBlockIndex":0,"delta":{"text":"Let"}}`,
	`{"contentBlockIndex":1,"delta":{"text":" are **3** r's in \""}}`,
	`{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"value\":"}}}`,
	`{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Let me count the r"}}}`,
	`{"contentBlockIndex":0,"delta":{"text":"Hi"},"p":"abcdefghijklmnopqrstuvwxyzABCDEF"}`,
	`{"contentBlockIndex":0,"delta":{"text":"\u00e9\ud83d\ude00\n"}}`,
	`{"contentBlockIndex":0,"delta":{"text":""}}`,
	`{"contentBlockIndex":0,"delta":{"text":null}}`,
	`{"contentBlockIndex":0,"delta":{"Text":"case"}}`,
	`{"contentBlockIndex":0,"delta":{"text":"a","text":"b"}}`,
	`{"contentBlockIndex":0,"delta":{"text":"a","toolUse":{"input":"x"}}}`,
	`{"contentBlockIndex":-1,"delta":{"toolUse":{"input":"x"}}}`,
	`{"contentBlockIndex":"0","delta":{"text":"x"}}`,
	`{"contentBlockIndex":0,"delta":{"text":"bad \xff utf8"}}`,
	`{"contentBlockIndex":0,"delta":{"text":"unterminated}}`,
	`{"delta":{"text":"no index"}}`,
}

func collect(f func(yield func(helikon.ModelEvent, error) bool) (bool, error)) ([]helikon.ModelEvent, bool, bool) {
	var evs []helikon.ModelEvent
	more, err := f(func(ev helikon.ModelEvent, _ error) bool { evs = append(evs, ev); return true })
	return evs, more, err != nil
}

// checkFastAgrees fails when the fast path handles payload differently
// from encoding/json.
func checkFastAgrees(t *testing.T, payload []byte) (handled bool) {
	t.Helper()
	start := func() *decoder {
		d := &decoder{}
		d.toolStart(0, "call", "get_weather", func(helikon.ModelEvent, error) bool { return true })
		return d
	}
	fast, _, _ := collect(func(y func(helikon.ModelEvent, error) bool) (bool, error) {
		var more bool
		handled, more = start().fastDelta(payload, y)
		return more, nil
	})
	if !handled {
		return false
	}
	slow, _, failed := collect(func(y func(helikon.ModelEvent, error) bool) (bool, error) {
		return start().general([]byte("contentBlockDelta"), payload, y)
	})
	if failed || !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: fast path %+v, encoding/json %+v (failed %v)", payload, fast, slow, failed)
	}
	return true
}

func TestFastDelta_AgreesWithEncodingJSON(t *testing.T) {
	for i, p := range deltaPayloads {
		// The recorded text and tool-input deltas take the fast path.
		if handled := checkFastAgrees(t, []byte(p)); !handled && (i < 3 || i == 4 || i == 5) {
			t.Errorf("%s took the general path", p)
		}
	}
}

func FuzzFastDelta(f *testing.F) {
	for _, p := range deltaPayloads {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, payload []byte) { _ = checkFastAgrees(t, payload) })
}
