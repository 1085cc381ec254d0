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
	`{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"value\":"}}}`,
	`{"delta":{"toolUse":{"input":"x"}}}`,
}

// yielded is an event or the text of an error a decoder yielded.
type yielded struct {
	ev  helikon.ModelEvent
	err string
}

func collect(f func(yield func(helikon.ModelEvent, error) bool) (bool, error)) ([]yielded, bool, bool) {
	var evs []yielded
	more, err := f(func(ev helikon.ModelEvent, err error) bool {
		y := yielded{ev: ev}
		if err != nil {
			y.err = err.Error()
		}
		evs = append(evs, y)
		return true
	})
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
	fast, fastMore, _ := collect(func(y func(helikon.ModelEvent, error) bool) (bool, error) {
		var more bool
		handled, more = start().fastDelta(payload, y)
		return more, nil
	})
	if !handled {
		return false
	}
	slow, slowMore, failed := collect(func(y func(helikon.ModelEvent, error) bool) (bool, error) {
		return start().general([]byte("contentBlockDelta"), payload, y)
	})
	if failed || fastMore != slowMore || !reflect.DeepEqual(fast, slow) {
		t.Errorf("%q: fast path %+v (more %v), encoding/json %+v (more %v, failed %v)", payload, fast, fastMore, slow, slowMore, failed)
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
