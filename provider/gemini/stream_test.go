package gemini

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// replay runs body through a decoder the way Invoke does.
func replay(t *testing.T, body string, slowOnly bool) ([]helikon.ModelEvent, error) {
	t.Helper()
	var evs []helikon.ModelEvent
	var failed error
	yield := func(ev helikon.ModelEvent, err error) bool {
		if err != nil {
			failed = err
			return false
		}
		evs = append(evs, ev)
		return true
	}
	d := decoder{slowOnly: slowOnly}
	httpx.ReadEvents(t.Context(), providerName, strings.NewReader(body), 0, yield, func(b []byte) bool { return d.handle(b, yield) })
	if failed == nil || errors.Is(failed, httpx.ErrStreamTruncated) {
		failed = nil
		if !d.atEOF(yield) {
			failed = httpx.ErrStreamTruncated
		}
	}
	return evs, failed
}

func TestDecoder_FastAndGeneralPathsAgreeOnEveryRecording(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sse")
	if err != nil || len(files) == 0 {
		t.Fatal("no recordings", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fast, fastErr := replay(t, string(data), false)
		slow, slowErr := replay(t, string(data), true)
		if !reflect.DeepEqual(fast, slow) || (fastErr == nil) != (slowErr == nil) {
			t.Errorf("%s: fast path %v %v\ngeneral path %v %v", f, fast, fastErr, slow, slowErr)
		}
	}
}

func TestDecoder_ThoughtPartIsReasoning(t *testing.T) {
	data, err := os.ReadFile("testdata/thought_chunk.sse")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := replay(t, string(data), false)
	var got []helikon.ReasoningDelta
	for _, ev := range evs {
		if r, ok := ev.(helikon.ReasoningDelta); ok {
			got = append(got, r)
		}
		if _, ok := ev.(helikon.TokenDelta); ok {
			t.Errorf("a thought streamed as answer text: %+v", ev)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0].Text, "**Processing User Requests**") || got[0].ID != sigPrefix+sigThought {
		t.Errorf("reasoning = %+v", got)
	}
}

// The usageMetadata of vercel/ai's google-usage-raw-live.chunks.txt
// (packages/google/src/__fixtures__, commit ac35d13e1561d06de5bacac2df8df7ef47f1fc3e),
// verbatim: cached, tool-use prompt and thought tokens together.
const recordedUsage = `{"promptTokenCount":12,"candidatesTokenCount":71,"totalTokenCount":237,"cachedContentTokenCount":4,"promptTokensDetails":[{"modality":"TEXT","tokenCount":12}],"cacheTokensDetails":[{"modality":"TEXT","tokenCount":4}],"toolUsePromptTokenCount":65,"toolUsePromptTokensDetails":[{"modality":"TEXT","tokenCount":65}],"thoughtsTokenCount":89,"serviceTier":"standard"}`

func TestDecoder_UsageCountsCachedThoughtAndToolPromptTokens(t *testing.T) {
	body := `data: {"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":` + recordedUsage + "}\n\n"
	evs, err := replay(t, body, false)
	if err != nil {
		t.Fatal(err)
	}
	want := helikon.Usage{InputTokens: 12 + 65, OutputTokens: 71 + 89, CachedInputTokens: 4, ReasoningTokens: 89}
	var got helikon.Usage
	for _, ev := range evs {
		if u, ok := ev.(helikon.Usage); ok {
			got = u
		}
	}
	if got != want {
		t.Errorf("usage = %+v, want %+v", got, want)
	}
}

func TestDecoder_FinishReasons(t *testing.T) {
	for reason, want := range map[string]any{
		"STOP": helikon.FinishStop, "MAX_TOKENS": helikon.FinishLength, "MALFORMED_FUNCTION_CALL": helikon.FinishOther,
		"SAFETY": helikon.ModelRefused, "RECITATION": helikon.ModelRefused, "PROHIBITED_CONTENT": helikon.ModelRefused,
	} {
		body := `data: {"candidates":[{"content":{"parts":[{"text":"x"}],"role":"model"},"finishReason":"` + reason + `","index":0}]}` + "\n\n"
		evs, err := replay(t, body, false)
		var me *helikon.ModelError
		switch w := want.(type) {
		case helikon.ModelErrorKind:
			if !errors.As(err, &me) || me.Kind != w || !strings.Contains(me.Message, reason) {
				t.Errorf("%s: err = %v, want %s naming the reason", reason, err, w)
			}
		case helikon.FinishReason:
			if err != nil || evs[len(evs)-1] != (helikon.Finish{Reason: w}) {
				t.Errorf("%s: %v %v, want finish %s", reason, evs, err, w)
			}
		}
	}
}

func TestDecoder_ErrorInsideTheStream(t *testing.T) {
	body := `data: {"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}` + "\n\n" +
		`data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}` + "\n\n"
	_, err := replay(t, body, false)
	var me *helikon.ModelError
	if !errors.As(err, &me) || me.Kind != helikon.ModelUnavailable {
		t.Errorf("err = %v, want Unavailable", err)
	}
	body = `data: {"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}` + "\n\n"
	if _, err = replay(t, body, false); !errors.As(err, &me) || me.Kind != helikon.ModelRateLimited || me.RetryAfter.Seconds() != 3 {
		t.Errorf("err = %v, want RateLimited after 3s", err)
	}
}

func TestDecoder_MalformedChunkIsTransport(t *testing.T) {
	_, err := replay(t, "data: {\"candidates\":[\n\n", false)
	if !errors.Is(err, helikon.ErrTransport) {
		t.Errorf("err = %v", err)
	}
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		t.Errorf("err = %v does not wrap the JSON error", err)
	}
}
