package bedrock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

const claude = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"

func collectText(evs []helikon.ModelEvent) (text, reasoning, sig string) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case helikon.TokenDelta:
			text += e.Text
		case helikon.ReasoningDelta:
			reasoning += e.Text
			sig += e.Signature
		}
	}
	return
}

func lastOf[T helikon.ModelEvent](evs []helikon.ModelEvent) (T, bool) {
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

func TestStream_RecordedText(t *testing.T) {
	f := newFake(t, stream(t, "testdata/text.jsonl"))
	res := providertest.Collect(newModel(t, f.URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("How many r's in strawberry?")}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	text, _, _ := collectText(res.Events)
	if !strings.HasPrefix(text, "Let me count the \"r\"s") || !strings.HasSuffix(text, "r's in \"strawberry.\"") {
		t.Errorf("text = %q", text)
	}
	if u, _ := lastOf[helikon.Usage](res.Events); u != (helikon.Usage{InputTokens: 22, OutputTokens: 55}) {
		t.Errorf("usage = %+v", u)
	}
	if fin, _ := lastOf[helikon.Finish](res.Events); fin.Reason != helikon.FinishStop {
		t.Errorf("finish = %+v", fin)
	}
	if want := "/model/" + strings.ReplaceAll(claude, ":", "%3A") + "/converse-stream"; f.paths[0] != want {
		t.Errorf("path = %s, want %s", f.paths[0], want)
	}
}

func TestStream_ReasoningWithSignatureGoesBack(t *testing.T) {
	f := newFake(t, stream(t, "testdata/reasoning.jsonl"), stream(t, "testdata/text.jsonl"))
	m := newModel(t, f.URL, claude)
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("r's?")}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	text, reasoning, sig := collectText(res.Events)
	if !strings.HasPrefix(reasoning, "Let me count the r") || !strings.HasPrefix(sig, "Ep0CCkgI") || !strings.HasPrefix(text, "There are **3**") {
		t.Fatalf("text %q reasoning %q signature %q", text, reasoning, sig)
	}
	msgs := append(helikon.UserText("r's?"), helikon.Item{Role: helikon.RoleAssistant, Content: []helikon.ContentPart{
		helikon.ReasoningPart{Text: reasoning, Signature: sig}, helikon.TextPart{Text: text}}}, helikon.UserText("thanks")[0])
	if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: msgs})); res.Err != nil {
		t.Fatal(res.Err)
	}
	got, _ := json.Marshal(f.lastBody(t)["messages"].([]any)[1])
	if !strings.Contains(string(got), `"reasoningContent":{"reasoningText":{"signature":"`+sig+`","text":`) {
		t.Errorf("assistant turn = %s, want the reasoning with its signature", got)
	}
}

func TestStream_ToolCall(t *testing.T) {
	f := newFake(t, stream(t, "testdata/tool_call.jsonl"))
	res := providertest.Collect(newModel(t, f.URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("go"),
		Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var calls []helikon.ToolCallDelta
	args := ""
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			calls = append(calls, d)
			args += d.ArgsDelta
		}
	}
	if len(calls) == 0 || calls[0].CallID != "tool-use-id" || calls[0].Name != "test-tool" || args != `{"value":"Sparkle Day"}` {
		t.Errorf("calls = %+v, args %s", calls, args)
	}
	if fin, _ := lastOf[helikon.Finish](res.Events); fin.Reason != helikon.FinishToolCalls {
		t.Errorf("finish = %+v", fin)
	}
	if u, _ := lastOf[helikon.Usage](res.Events); u.InputTokens != 125 || u.OutputTokens != 45 {
		t.Errorf("usage = %+v", u)
	}
}

func TestStream_ErrorsMapToKinds(t *testing.T) {
	textFrames := loadFrames(t, "testdata/text.jsonl")
	midStream := func(typ, msg string) response {
		fr := append(append([]frame{}, textFrames[:3]...), frame{kind: "exception", typ: typ, payload: []byte(`{"message":"` + msg + `"}`)})
		return response{body: encode(t, fr)}
	}
	httpErr := func(status int, typ, msg string) response {
		return response{status: status, header: map[string]string{"X-Amzn-Errortype": typ, "Content-Type": "application/json"},
			body: []byte(`{"message":"` + msg + `"}`)}
	}
	corrupt := encode(t, textFrames)
	corrupt[len(corrupt)/2] ^= 0xff
	const retryable, final = true, false
	tests := []struct {
		name string
		resp response
		kind helikon.ModelErrorKind
		// retry is whether the error is worth retrying (Transient): an
		// access refusal or a missing model needs a change of
		// configuration, not another attempt.
		retry bool
		// quotes are all in the error's text.
		quotes []string
	}{
		{"throttling", httpErr(429, "ThrottlingException", "Too many requests, please wait before trying again."), helikon.ModelRateLimited, retryable, []string{"Too many"}},
		{"service unavailable", httpErr(503, "ServiceUnavailableException", "Service unavailable"), helikon.ModelUnavailable, retryable, []string{"unavailable"}},
		{"service quota", httpErr(400, "ServiceQuotaExceededException", "Your request exceeds the service quota for your account."), helikon.ModelRateLimited, retryable, []string{"quota"}},
		{"model timeout", httpErr(408, "ModelTimeoutException", "Model timed out"), helikon.ModelUnavailable, retryable, []string{"timed out"}},
		{"model not ready", httpErr(429, "ModelNotReadyException", "Model is not ready"), helikon.ModelUnavailable, retryable, []string{"not ready"}},
		{"internal", httpErr(500, "InternalServerException", "Internal error"), helikon.ModelUnavailable, retryable, []string{"Internal"}},
		{"context length", httpErr(400, "ValidationException", "Input is too long for requested model."), helikon.ModelContextLengthExceeded, final, []string{"too long"}},
		{"other validation", httpErr(400, "ValidationException", "Malformed input request"), helikon.ModelOther, final, []string{"Malformed"}},
		{"access denied names model and region", httpErr(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."), helikon.ModelOther, final, []string{"don't have access", claude, "us-east-1"}},
		{"not found names model and region", httpErr(404, "ResourceNotFoundException", "Model not found"), helikon.ModelOther, final, []string{"Model not found", claude, "us-east-1"}},
		{"stream error mid-stream", midStream("modelStreamErrorException", "The model stream failed"), helikon.ModelUnavailable, retryable, []string{"stream failed"}},
		{"throttling mid-stream", midStream("throttlingException", "Too many tokens"), helikon.ModelRateLimited, retryable, []string{"Too many"}},
		{"truncated stream", response{body: encode(t, textFrames[:5])}, helikon.ModelTransport, retryable, nil},
		{"stream cut inside a message", response{body: encode(t, textFrames[:5])[:100]}, helikon.ModelTransport, retryable, []string{"unexpected EOF"}},
		{"corrupt message", response{body: corrupt}, helikon.ModelTransport, retryable, []string{"checksum"}},
		{"gateway page with status 200", response{status: 200, header: map[string]string{"Content-Type": "text/html"}, body: []byte("<html>502 Bad Gateway</html>")}, helikon.ModelOther, final, []string{"502 Bad Gateway"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.resp)
			res := providertest.Collect(newModel(t, f.URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			var me *helikon.ModelError
			if !errors.As(res.Err, &me) || me.Kind != tt.kind {
				t.Fatalf("err = %v, want %s", res.Err, tt.kind)
			}
			for _, q := range tt.quotes {
				if !strings.Contains(me.Error(), q) {
					t.Errorf("err = %v, want it to name %q", me, q)
				}
			}
			if me.Transient() != tt.retry {
				t.Errorf("err = %v: Transient() = %v, want %v", me, me.Transient(), tt.retry)
			}
			if _, ok := lastOf[helikon.Finish](res.Events); ok {
				t.Error("a failed stream reported Finish")
			}
		})
	}
}

func TestStream_MessageOverTheLimitIsNotRetryable(t *testing.T) {
	f := newFake(t, stream(t, "testdata/text.jsonl"))
	res := providertest.Collect(newModel(t, f.URL, claude, bedrock.WithMaxEventSize(64)).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) || me.Kind != helikon.ModelOther || me.Transient() || !strings.Contains(me.Error(), "limit 64") {
		t.Fatalf("err = %v, want a non-retryable Other error naming the limit", res.Err)
	}
}

func TestStream_CancelMidStreamAgainstAServerThatNeverFinishes(t *testing.T) {
	fr := loadFrames(t, "testdata/text.jsonl")
	f := newFake(t, response{body: encode(t, fr[:3]), hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	m := newModel(t, f.URL, claude)
	go func() {
		var err error
		for _, e := range m.Invoke(ctx, &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
			if e != nil {
				err = e
				break
			}
			cancel()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !errors.Is(err, helikon.ErrTransport) {
			t.Errorf("err = %v, want Transport wrapping context.Canceled", err)
		}
	case <-time.After(10 * time.Second): // only detects a hang
		t.Fatal("Invoke did not return after cancellation")
	}
}

// repeatDelta returns the recording's frames with its first text delta
// repeated n times in place: a long stream made only of recorded events.
func repeatDelta(t testing.TB, frames []frame, n int) []frame {
	t.Helper()
	for i, f := range frames {
		if f.typ == "contentBlockDelta" && strings.Contains(string(f.payload), `"text"`) {
			out := append([]frame{}, frames[:i]...)
			for range n {
				out = append(out, f)
			}
			return append(out, frames[i+1:]...)
		}
	}
	t.Fatal("no text delta in the recording")
	return nil
}

// A fast local server answers before net/http's write loop has finished
// with the request body; the SDK then closes that body, and without the
// adapter's plain request body net/http closed the connection under the
// response (about one replay in three of this stream failed with "use of
// closed network connection").
func TestStream_LongReplaysOverLoopbackAllSucceed(t *testing.T) {
	body := encode(t, repeatDelta(t, loadFrames(t, "testdata/text.jsonl"), 1000))
	const replays = 30
	resps := make([]response, replays)
	for i := range resps {
		resps[i] = response{body: body}
	}
	m := newModel(t, newFake(t, resps...).URL, claude)
	for i := range replays {
		res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
		if res.Err != nil {
			t.Fatalf("replay %d: %v", i, res.Err)
		}
		if fin, ok := lastOf[helikon.Finish](res.Events); !ok || fin.Reason != helikon.FinishStop {
			t.Fatalf("replay %d: finish = %+v", i, fin)
		}
	}
}

func TestStream_EveryStopReasonTheSDKKnowsMaps(t *testing.T) {
	// The recorded text stream, its messageStop's stopReason set to each
	// value the SDK's StopReason enum lists (the service model's).
	want := map[types.StopReason]any{
		types.StopReasonEndTurn: helikon.FinishStop, types.StopReasonStopSequence: helikon.FinishStop,
		types.StopReasonMaxTokens: helikon.FinishLength, types.StopReasonModelContextWindowExceeded: helikon.FinishLength,
		types.StopReasonToolUse:             helikon.FinishToolCalls,
		types.StopReasonGuardrailIntervened: helikon.ModelRefused, types.StopReasonContentFiltered: helikon.ModelRefused,
		types.StopReasonMalformedModelOutput: helikon.FinishOther, types.StopReasonMalformedToolUse: helikon.FinishOther,
	}
	for _, reason := range types.StopReason("").Values() {
		w, ok := want[reason]
		if !ok {
			t.Errorf("stop reason %q is new to the SDK: map it", reason)
			continue
		}
		fr := loadFrames(t, "testdata/text.jsonl")
		for i := range fr {
			if fr[i].typ == "messageStop" {
				fr[i].payload = bytes.Replace(fr[i].payload, []byte(`"end_turn"`), []byte(`"`+string(reason)+`"`), 1)
			}
		}
		f := newFake(t, response{body: encode(t, fr)})
		res := providertest.Collect(newModel(t, f.URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
		fin, finished := lastOf[helikon.Finish](res.Events)
		var me *helikon.ModelError
		switch w := w.(type) {
		case helikon.FinishReason:
			if res.Err != nil || !finished || fin.Reason != w {
				t.Errorf("%s: finish %+v err %v, want %s", reason, fin, res.Err, w)
			}
		case helikon.ModelErrorKind:
			if !errors.As(res.Err, &me) || me.Kind != w || !strings.Contains(me.Message, string(reason)) || finished {
				t.Errorf("%s: err %v (finished %v), want %s naming the reason", reason, res.Err, finished, w)
			}
		}
	}
}

func TestInvoke_MissingCredentialsFailBeforeSendingNamingTheVariables(t *testing.T) {
	f := newFake(t, stream(t, "testdata/text.jsonl"))
	none := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{}, errors.New("no EC2 IMDS role found")
	})
	m, err := bedrock.New(aws.Config{Region: "eu-west-1", Credentials: none}, claude, bedrock.WithBaseEndpoint(f.URL))
	if err != nil {
		t.Fatal(err)
	}
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) || me.Kind != helikon.ModelOther || me.Transient() || !errors.Is(res.Err, bedrock.ErrNoCredentials) ||
		!strings.Contains(me.Error(), "AWS_ACCESS_KEY_ID") || !strings.Contains(me.Error(), "eu-west-1") || !strings.Contains(me.Error(), "IMDS") {
		t.Errorf("err = %v, want a final error wrapping ErrNoCredentials, naming the variables, the region and the cause", res.Err)
	}
	if len(f.bodies) != 0 {
		t.Error("a request was sent without credentials")
	}
}

func TestStream_SeveralToolCallsInOneTurn(t *testing.T) {
	// No recording of parallel calls on ConverseStream was found; this one
	// is derived from the recorded tool call: its four block events again
	// as block 1 with another id, the recorded shapes unchanged.
	rec := loadFrames(t, "testdata/tool_call.jsonl")
	fr := append([]frame{}, rec[:4]...)
	for _, f := range rec[:4] {
		f.payload = bytes.ReplaceAll(f.payload, []byte(`"contentBlockIndex":0`), []byte(`"contentBlockIndex":1`))
		f.payload = bytes.ReplaceAll(f.payload, []byte(`"tool-use-id"`), []byte(`"tool-use-id-2"`))
		f.payload = bytes.ReplaceAll(f.payload, []byte(`Sparkle Day`), []byte(`Rainy Day`))
		fr = append(fr, f)
	}
	fr = append(fr, rec[4:]...)
	f := newFake(t, response{body: encode(t, fr)})
	res := providertest.Collect(newModel(t, f.URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("go"),
		Tools: []helikon.ToolDef{providertest.WeatherTool}}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	args := map[string]string{}
	var order []string
	id := ""
	for _, ev := range res.Events {
		if d, ok := ev.(helikon.ToolCallDelta); ok {
			if d.CallID != "" && d.CallID != id {
				id = d.CallID
				order = append(order, id)
			}
			args[id] += d.ArgsDelta
		}
	}
	if !reflect.DeepEqual(order, []string{"tool-use-id", "tool-use-id-2"}) ||
		args["tool-use-id"] != `{"value":"Sparkle Day"}` || args["tool-use-id-2"] != `{"value":"Rainy Day"}` {
		t.Errorf("calls %v with args %v", order, args)
	}
	if fin, _ := lastOf[helikon.Finish](res.Events); fin.Reason != helikon.FinishToolCalls {
		t.Errorf("finish = %+v", fin)
	}
}

// Bedrock reports prompt-cache reads and writes beside inputTokens, which
// counts neither; the Usage event counts every input token and gives the
// cached ones apart. No recorded stream with a cache hit was found: this
// one is the recorded text stream with its metadata event's usage given
// the cache members of the service model's TokenUsage shape (the payload is
// checked against that shape).
func TestStream_CacheReadAndWriteTokensMapToUsage(t *testing.T) {
	const metadata = `{"metrics":{"latencyMs":2040},"usage":{"inputTokens":22,"outputTokens":55,"totalTokens":3925,` +
		`"cacheReadInputTokens":2048,"cacheWriteInputTokens":1800,"cacheDetails":[{"ttl":"5m","inputTokens":1800}]}}`
	shapes, err := readServiceModel("testdata/bedrock_runtime_metadata_event_shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	if errs := shapes.checkBody([]byte(metadata)); len(errs) > 0 {
		t.Fatalf("the metadata event does not match the service model: %v", errs)
	}
	fr := loadFrames(t, "testdata/text.jsonl")
	for i := range fr {
		if fr[i].typ == "metadata" {
			fr[i].payload = []byte(metadata)
		}
	}
	want := helikon.Usage{InputTokens: 22 + 2048 + 1800, OutputTokens: 55, CachedInputTokens: 2048, CacheWriteTokens: 1800}
	res := providertest.Collect(newModel(t, newFake(t, response{body: encode(t, fr)}).URL, claude).Invoke(t.Context(),
		&helikon.ModelRequest{Messages: helikon.UserText("hi")}))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if u, _ := lastOf[helikon.Usage](res.Events); u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
}

// TestStream_IncompleteOrContradictoryStreamsFailAsTransport: tool input
// for a block nothing opened (or for no block) is a malformed event, and a
// stream that ends after messageStop without the metadata event, which
// Bedrock always sends last and which alone carries the usage, was cut:
// both are Transport errors with no Finish.
func TestStream_IncompleteOrContradictoryStreamsFailAsTransport(t *testing.T) {
	textFrames := loadFrames(t, "testdata/text.jsonl")
	callFrames := loadFrames(t, "testdata/tool_call.jsonl")
	without := func(frames []frame, typ string) []frame {
		var out []frame
		for _, f := range frames {
			if f.typ != typ {
				out = append(out, f)
			}
		}
		return out
	}
	noIndex := append([]frame{callFrames[0]}, frame{kind: "event", typ: "contentBlockDelta",
		payload: []byte(`{"delta":{"toolUse":{"input":"{\"value\":1}"}}}`)})
	noIndex = append(noIndex, callFrames[3:]...)
	inputOnText := append([]frame{textFrames[0], textFrames[1]}, frame{kind: "event", typ: "contentBlockDelta",
		payload: []byte(`{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{}"}}}`)})
	inputOnText = append(inputOnText, textFrames[2:]...)
	tests := []struct {
		name    string
		frames  []frame
		message string // the ModelError's Message
		cause   string // in its error text
	}{
		{"tool input for a block nothing opened", without(callFrames, "contentBlockStart"), "malformed event", "content block 0, which no contentBlockStart opened"},
		{"tool input without a block index", noIndex, "malformed event", "without a contentBlockIndex"},
		{"tool input on a text block", inputOnText, "malformed event", "content block 0"},
		{"messageStop without metadata", without(textFrames, "metadata"), "", "without the metadata event's token usage"},
		{"metadata without usage", append(without(textFrames, "metadata"), frame{kind: "event", typ: "metadata", payload: []byte(`{"metrics":{"latencyMs":2040}}`)}), "", "token usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &helikon.ModelRequest{Messages: helikon.UserText("hi"), Tools: []helikon.ToolDef{providertest.WeatherTool}}
			m := newModel(t, newFake(t, response{body: encode(t, tt.frames)}).URL, claude)
			res := providertest.Collect(m.Invoke(t.Context(), req))
			var me *helikon.ModelError
			if !errors.As(res.Err, &me) || me.Kind != helikon.ModelTransport || me.Message != tt.message || !strings.Contains(me.Error(), tt.cause) {
				t.Fatalf("err = %v, want a Transport ModelError (message %q) saying %q", res.Err, tt.message, tt.cause)
			}
			for _, ev := range res.Events {
				if _, ok := ev.(helikon.Finish); ok {
					t.Error("the stream reported Finish")
				}
			}
		})
	}
}

func TestNew_ConfigWithoutARegionIsErrNoRegion(t *testing.T) {
	_, err := bedrock.New(aws.Config{Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}, claude)
	if !errors.Is(err, bedrock.ErrNoRegion) || !strings.Contains(err.Error(), "AWS_REGION") {
		t.Fatalf("err = %v, want ErrNoRegion naming AWS_REGION", err)
	}
}
