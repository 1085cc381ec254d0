package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
)

// Suite describes one adapter to [Run].
type Suite struct {
	// New returns the adapter under test, sending its requests to baseURL.
	New func(t testing.TB, baseURL string) helikon.Model
	// Path is the URL path the adapter posts to, e.g. "/v1/messages".
	Path string

	// Text is a plain streamed answer.
	Text Case
	// ToolCall is a turn calling the suite's get_weather tool; RoundTrip is
	// the recording answering the follow-up request that carries the
	// tool's result back.
	ToolCall, RoundTrip Case
	// ParallelToolCalls is a turn with two tool calls.
	ParallelToolCalls Case
	// StructuredOutput answers the suite's json_schema response format.
	StructuredOutput Case
	// Usage reports cached (and, where the API has them, reasoning) tokens.
	Usage Case
	// Refusal is a turn the model declines; it must end in a Refused error.
	// ParallelToolCalls, StructuredOutput and Refusal may be left zero when
	// no authentic recording of them exists; their subtests then skip,
	// saying why, rather than replay an invented shape.
	Refusal Case
	// Errors maps a name to an error recording and the error it must yield.
	Errors map[string]Case
	// Behaviours maps a name to a recording of one server's particular way
	// of streaming (a compatible server's reasoning field, a gateway's
	// extra first chunk, arguments sent only at the end) and what the
	// adapter must make of it. Each answers a request offering
	// [WeatherTool].
	Behaviours map[string]Case

	// Malformed maps a name to a recording that contradicts itself, made
	// from one of the adapter's authentic recordings by the one change its
	// name says: arguments for a call no event opened, a block start
	// without its block, a call part without a name. Each must end in a
	// Transport "malformed event" error, with no nameless call before it:
	// a stream the adapter cannot follow is refused, never guessed at.
	Malformed map[string]string

	// CheckRequest, when set, validates every request body the adapter
	// sends, typically against the provider's published API schema.
	CheckRequest func(t *testing.T, body []byte)

	// NotEventStream maps a name to a recording of a 2xx response that is
	// not an event stream (a JSON error body, a whole JSON completion) and
	// the error it must yield. The suite adds a gateway's HTML page and an
	// empty body itself; every such case must fail without retry.
	NotEventStream map[string]Case
	// NewLimited, when set, is New with the adapter's limit on one stream
	// event set to maxEvent bytes.
	NewLimited func(t testing.TB, baseURL string, maxEvent int) helikon.Model

	// Load, when set, reads the recordings instead of [Load]: an API with
	// a binary framing (Bedrock's event stream) keeps its recordings as
	// event payloads and frames them here, returning a Recording with
	// Frames set.
	Load func(path string) (Recording, error)
	// OversizedEvent, when set, returns the start of one stream event
	// larger than max bytes in the API's framing, for
	// OversizedEventIsNotRetryable; unset, the suite sends an SSE data line
	// that never ends.
	OversizedEvent func(max int) []byte

	// CallArguments, when set, returns the arguments of the tool call
	// callID as the request body carries them (decoded from a string where
	// the API sends a string), so the suite can check that invalid
	// arguments in the history still travel as a JSON object.
	CallArguments func(body []byte, callID string) (json.RawMessage, error)
}

// Case is one recording and what the adapter must make of it.
type Case struct {
	// Fixture is the path of the recording (see [Load]).
	Fixture string
	Want    Want
}

// Want is the expected outcome of replaying a recording.
type Want struct {
	// Text is the concatenated TokenDelta text.
	Text string
	// Reasoning is the concatenated ReasoningDelta text.
	Reasoning string
	// Calls are the tool calls, in order, with their assembled arguments.
	Calls []helikon.ToolUsePart
	// Usage, when set, is the Usage event the stream must report.
	Usage *helikon.Usage
	// ResponseID, when set, is the ResponseInfo id the stream must report.
	ResponseID string
	// Finish is the finish reason of a stream that succeeds.
	Finish helikon.FinishReason
	// Err is the kind of the ModelError the stream must end with.
	Err helikon.ModelErrorKind
	// StatusCode and RetryAfter are checked on that error when set.
	StatusCode int
	RetryAfter time.Duration
	// UsageOnly limits the check to usage, response id and finish, for
	// recordings chosen for their usage block rather than their content.
	UsageOnly bool
}

// Result is a collected stream.
type Result struct {
	Events []helikon.ModelEvent
	Err    error
}

// Collect drains a model stream.
func Collect(seq func(func(helikon.ModelEvent, error) bool)) Result {
	var r Result
	for ev, err := range seq {
		if err != nil {
			r.Err = err
			break
		}
		r.Events = append(r.Events, ev)
	}
	return r
}

// WeatherTool is the tool the suite's tool-call requests offer.
var WeatherTool = helikon.ToolDef{
	Name:        "get_weather",
	Description: "Get the current weather for a city.",
	Parameters: &jsonschema.Schema{Type: "object", Required: []string{"city"}, Properties: map[string]*jsonschema.Schema{
		"city":  {Type: "string"},
		"state": {Type: "string"},
		"units": {Type: "string", Enum: []any{"c", "f"}},
	}},
}

// StockTool is the second tool of the parallel-calls request.
var StockTool = helikon.ToolDef{
	Name:        "get_stock_price",
	Description: "Get the latest price of a stock.",
	Parameters: &jsonschema.Schema{Type: "object", Required: []string{"ticker"}, Properties: map[string]*jsonschema.Schema{
		"ticker":   {Type: "string"},
		"exchange": {Type: "string"},
	}},
}

// OutputSchema is the structured-output schema the suite asks for.
var OutputSchema = &jsonschema.Schema{Type: "object", Required: []string{"city"}, Properties: map[string]*jsonschema.Schema{
	"city":        {Type: "string"},
	"temperature": {Type: "number"},
	"units":       {Type: "string", Enum: []any{"c", "f"}},
}}

func userAsk(text string) []helikon.Item {
	return append([]helikon.Item{helikon.SystemItem("You are a helpful assistant.")}, helikon.UserText(text)...)
}

// Run runs the conformance suite against the adapter s describes.
func Run(t *testing.T, s Suite) {
	t.Run("StreamedText", func(t *testing.T) {
		s.replay(t, s.Text, &helikon.ModelRequest{Messages: userAsk("What's the weather like in SF?")})
	})
	t.Run("ToolCallRoundTrip", func(t *testing.T) { s.roundTrip(t) })
	t.Run("ParallelToolCalls", func(t *testing.T) {
		if s.ParallelToolCalls.Fixture == "" {
			t.Skip("no authentic recording of parallel tool calls for this API; the adapter's own tests cover several calls in one turn")
		}
		s.replay(t, s.ParallelToolCalls, &helikon.ModelRequest{Messages: userAsk("Weather in Edinburgh and the AAPL price?"),
			Tools: []helikon.ToolDef{WeatherTool, StockTool}})
	})
	t.Run("StructuredOutput", func(t *testing.T) {
		if s.StructuredOutput.Fixture == "" {
			t.Skip("no authentic recording of structured output for this API; the adapter's own tests cover the request")
		}
		res := s.replay(t, s.StructuredOutput, &helikon.ModelRequest{Messages: userAsk("Weather in SF as JSON."),
			Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "weather", Schema: OutputSchema, Strict: true}}})
		if res.Err == nil && !json.Valid([]byte(text(res.Events))) {
			t.Errorf("structured output is not JSON: %q", text(res.Events))
		}
	})
	t.Run("Usage", func(t *testing.T) {
		s.replay(t, s.Usage, &helikon.ModelRequest{Messages: userAsk("Hello")})
	})
	t.Run("Refusal", func(t *testing.T) {
		if s.Refusal.Fixture == "" {
			t.Skip("no authentic recording of a refusal for this API")
		}
		s.replay(t, s.Refusal, &helikon.ModelRequest{Messages: userAsk("Tell me how to do something harmful.")})
	})
	for name, c := range s.Errors {
		t.Run("Error/"+name, func(t *testing.T) {
			s.replay(t, c, &helikon.ModelRequest{Messages: userAsk("Hello")})
		})
	}
	for name, fixture := range s.Malformed {
		t.Run("Malformed/"+name, func(t *testing.T) { s.malformed(t, fixture) })
	}
	t.Run("NotAnEventStream", func(t *testing.T) {
		s.genericNotEventStream(t)
		for name, c := range s.NotEventStream {
			t.Run(name, func(t *testing.T) {
				rec, err := s.load(c.Fixture)
				if err != nil {
					t.Fatal(err)
				}
				s.notEventStream(t, rec, c.Want, "")
			})
		}
	})
	t.Run("OversizedEventIsNotRetryable", func(t *testing.T) { s.oversizedEvent(t) })
	t.Run("InvalidToolArgumentsInHistory", func(t *testing.T) { s.invalidArgsHistory(t) })
	for name, c := range s.Behaviours {
		t.Run("Behaviour/"+name, func(t *testing.T) {
			s.replay(t, c, &helikon.ModelRequest{Messages: userAsk("What's the weather in San Francisco?"), Tools: []helikon.ToolDef{WeatherTool}})
		})
	}
	t.Run("LineEndings", func(t *testing.T) { s.lineEndings(t) })
	t.Run("TruncatedStreamIsTransport", func(t *testing.T) { s.truncated(t) })
	t.Run("ConnectionFailureIsTransport", func(t *testing.T) { s.connectionFailure(t) })
	t.Run("CancelMidStreamReturnsAndClosesBody", func(t *testing.T) { s.cancelMidStream(t, false) })
	t.Run("BreakOutClosesBody", func(t *testing.T) { s.cancelMidStream(t, true) })
}

// load reads a recording with [Suite.Load] when set, else with [Load].
func (s Suite) load(path string) (Recording, error) {
	if s.Load != nil {
		return s.Load(path)
	}
	return Load(path)
}

// replay serves c's recording to one request and checks the outcome.
func (s Suite) replay(t *testing.T, c Case, req *helikon.ModelRequest) Result {
	t.Helper()
	if c.Fixture == "" {
		t.Fatal("providertest: the suite needs a recording for this case")
	}
	rec, err := s.load(c.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, rec)
	res := Collect(s.New(t, srv.URL).Invoke(t.Context(), req))
	s.checkRequests(t, srv)
	check(t, res, c.Want)
	return res
}

func (s Suite) checkRequests(t *testing.T, srv *server) {
	t.Helper()
	bodies, paths := srv.requests()
	for i, b := range bodies {
		if s.Path != "" && paths[i] != s.Path {
			t.Errorf("request %d went to %s, want %s", i, paths[i], s.Path)
		}
		if s.CheckRequest != nil {
			s.CheckRequest(t, b)
		}
	}
}

// roundTrip replays a tool call, sends its result back, and checks the
// follow-up request carries the call and its result.
func (s Suite) roundTrip(t *testing.T) {
	call, err := s.load(s.ToolCall.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := s.load(s.RoundTrip.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, call, answer)
	m := s.New(t, srv.URL)
	msgs := userAsk("What's the weather in San Francisco, in fahrenheit?")
	req := &helikon.ModelRequest{Messages: msgs, Tools: []helikon.ToolDef{WeatherTool}}
	first := Collect(m.Invoke(t.Context(), req))
	check(t, first, s.ToolCall.Want)
	calls := toolCalls(first.Events)
	if len(calls) == 0 {
		t.Fatal("no tool call to answer")
	}
	assistant := helikon.Item{Role: helikon.RoleAssistant}
	if txt := text(first.Events); txt != "" {
		assistant.Content = append(assistant.Content, helikon.TextPart{Text: txt})
	}
	const result = `{"temperature_f":68,"conditions":"fog"}`
	next := append(msgs, assistant)
	for _, c := range calls {
		assistant.Content = append(assistant.Content, c)
		next = append(next, helikon.Item{Role: helikon.RoleTool, Content: []helikon.ContentPart{
			helikon.ToolResultPart{CallID: c.CallID, Name: c.Name, Content: []helikon.ContentPart{helikon.TextPart{Text: result}}}}})
	}
	next[len(msgs)] = assistant
	second := Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: next, Tools: req.Tools}))
	check(t, second, s.RoundTrip.Want)
	s.checkRequests(t, srv)
	bodies, _ := srv.requests()
	if len(bodies) != 2 {
		t.Fatalf("server saw %d requests, want 2", len(bodies))
	}
	quoted, _ := json.Marshal(result)
	for _, c := range calls {
		if !bytes.Contains(bodies[1], []byte(`"`+c.CallID+`"`)) {
			t.Errorf("follow-up request does not carry call id %s:\n%s", c.CallID, bodies[1])
		}
	}
	if !bytes.Contains(bodies[1], quoted[1:len(quoted)-1]) {
		t.Errorf("follow-up request does not carry the tool result:\n%s", bodies[1])
	}
}

// malformed replays a self-contradicting recording: it must fail as a
// malformed event, whatever it streamed before.
func (s Suite) malformed(t *testing.T, fixture string) {
	rec, err := s.load(fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, rec)
	res := Collect(s.New(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{
		Messages: userAsk("What's the weather in San Francisco?"), Tools: []helikon.ToolDef{WeatherTool}}))
	invariants(t, res)
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) || me.Kind != helikon.ModelTransport || me.Message != "malformed event" {
		t.Fatalf("err = %v, want a Transport ModelError with message \"malformed event\"", res.Err)
	}
	if !me.Transient() {
		t.Error("a malformed event must be retryable, as a broken read is")
	}
	for _, c := range toolCalls(res.Events) {
		if c.Name == "" {
			t.Errorf("a call without a name was emitted: %+v", c)
		}
	}
}

// lineEndings replays the text recording with its lines ended by CR LF and
// by a bare CR, which the SSE standard allows beside LF: each must give
// what the recording gives.
func (s Suite) lineEndings(t *testing.T) {
	rec, err := s.load(s.Text.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Frames != nil {
		t.Skip("the API's framing is binary, not lines of text")
	}
	for name, end := range map[string]string{"CRLF": "\r\n", "CR": "\r"} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, rec.withLineEnds(end))
			res := Collect(s.New(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: userAsk("What's the weather like in SF?")}))
			check(t, res, s.Text.Want)
		})
	}
}

func (s Suite) truncated(t *testing.T) {
	rec, err := s.load(s.Text.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, rec.truncated())
	res := Collect(s.New(t, srv.URL).Invoke(t.Context(), &helikon.ModelRequest{Messages: userAsk("Hello")}))
	if !errors.Is(res.Err, helikon.ErrTransport) {
		t.Fatalf("err = %v, want a Transport ModelError", res.Err)
	}
	for _, ev := range res.Events {
		if _, ok := ev.(helikon.Finish); ok {
			t.Error("a truncated stream reported Finish")
		}
	}
}

func (s Suite) connectionFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	res := Collect(s.New(t, url).Invoke(t.Context(), &helikon.ModelRequest{Messages: userAsk("Hello")}))
	var me *helikon.ModelError
	if !errors.As(res.Err, &me) || me.Kind != helikon.ModelTransport || me.Err == nil {
		t.Fatalf("err = %#v, want a Transport ModelError wrapping the dial error", res.Err)
	}
	if !me.Transient() {
		t.Error("a connection failure must be retryable")
	}
}

// cancelMidStream serves the first event of the text recording and then
// never finishes. Cancelling the context (or breaking out of the range) must
// end the stream and close the connection, which the handler observes. An
// adapter that passes it reports [helikon.ModelCapabilities].HonoursCancellation,
// which lets a cancellable run read it without a hand-off.
func (s Suite) cancelMidStream(t *testing.T, breakOut bool) {
	rec, err := s.load(s.Text.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	gone := make(chan struct{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(gone)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", rec.contentType())
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(rec.head())
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	// New may call t.Fatal, which only the test's own goroutine may do.
	m := s.New(t, srv.URL)
	if !m.Capabilities().HonoursCancellation {
		t.Error("Capabilities().HonoursCancellation is false; an adapter that ends its stream on cancellation says so")
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		var r Result
		for ev, err := range m.Invoke(ctx, &helikon.ModelRequest{Messages: userAsk("Hello")}) {
			if err != nil {
				r.Err = err
				break
			}
			r.Events = append(r.Events, ev)
			if breakOut {
				break
			}
			cancel()
		}
		done <- r
	}()
	// These bounds only detect a hang; a correct adapter returns at once.
	const hang = 10 * time.Second
	var res Result
	select {
	case res = <-done:
	case <-time.After(hang):
		t.Fatal("Invoke did not return after cancellation")
	}
	select {
	case <-gone:
	case <-time.After(hang):
		t.Fatal("the response body was not closed: the server still holds the connection")
	}
	if breakOut {
		return
	}
	if !errors.Is(res.Err, helikon.ErrTransport) || !errors.Is(res.Err, context.Canceled) {
		t.Errorf("err = %v, want a Transport ModelError wrapping context.Canceled", res.Err)
	}
}

// check compares a collected stream with want and checks the invariants
// every stream keeps.
func check(t *testing.T, res Result, want Want) {
	t.Helper()
	invariants(t, res)
	if want.Err != "" {
		var me *helikon.ModelError
		if !errors.As(res.Err, &me) {
			t.Fatalf("err = %v, want a %s ModelError", res.Err, want.Err)
		}
		if me.Kind != want.Err {
			t.Errorf("error kind = %s, want %s (%v)", me.Kind, want.Err, me)
		}
		if want.StatusCode != 0 && me.StatusCode != want.StatusCode {
			t.Errorf("status = %d, want %d", me.StatusCode, want.StatusCode)
		}
		if me.RetryAfter != want.RetryAfter {
			t.Errorf("retry after = %v, want %v", me.RetryAfter, want.RetryAfter)
		}
		if me.Message == "" {
			t.Error("the error carries no provider message")
		}
		if m := strings.TrimSpace(me.Message); strings.HasPrefix(m, "{") || strings.HasPrefix(m, "[") {
			t.Errorf("the error's message is a raw JSON body, not the API's message: %.200s", m)
		}
	} else if res.Err != nil {
		t.Fatalf("unexpected error: %v", res.Err)
	}
	if want.UsageOnly {
		checkTail(t, res, want)
		return
	}
	if got := text(res.Events); got != want.Text {
		t.Errorf("text = %q, want %q", got, want.Text)
	}
	if got := reasoning(res.Events); got != want.Reasoning {
		t.Errorf("reasoning = %q, want %q", got, want.Reasoning)
	}
	calls := toolCalls(res.Events)
	if len(calls) != len(want.Calls) {
		t.Errorf("got %d tool calls %v, want %d", len(calls), calls, len(want.Calls))
	} else {
		for i, c := range calls {
			w := want.Calls[i]
			if c.CallID != w.CallID || c.Name != w.Name || !sameJSON(c.Args, w.Args) {
				t.Errorf("call %d = %s %s %s, want %s %s %s", i, c.CallID, c.Name, c.Args, w.CallID, w.Name, w.Args)
			}
		}
	}
	checkTail(t, res, want)
}

func checkTail(t *testing.T, res Result, want Want) {
	t.Helper()
	if want.Usage != nil {
		if u, ok := last[helikon.Usage](res.Events); !ok || u != *want.Usage {
			t.Errorf("usage = %+v, want %+v", u, *want.Usage)
		}
	}
	if want.ResponseID != "" {
		if ri, ok := last[helikon.ResponseInfo](res.Events); !ok || ri.ID != want.ResponseID {
			t.Errorf("response info = %+v, want id %s", ri, want.ResponseID)
		}
	}
	if want.Err == "" {
		if f, ok := last[helikon.Finish](res.Events); !ok || f.Reason != want.Finish {
			t.Errorf("finish = %+v, want %s", f, want.Finish)
		}
	}
}

// invariants: a successful stream ends with exactly one Finish; every
// tool-call delta names its call and the first one of a call its tool;
// ResponseInfo comes before any content.
func invariants(t *testing.T, res Result) {
	t.Helper()
	finishes := 0
	named := map[string]bool{}
	content := false
	for i, ev := range res.Events {
		switch e := ev.(type) {
		case helikon.Finish:
			finishes++
			if i != len(res.Events)-1 {
				t.Errorf("Finish at %d is not the last event", i)
			}
		case helikon.ToolCallDelta:
			content = true
			if e.CallID == "" {
				t.Errorf("tool-call delta %d has no CallID: %+v", i, e)
			}
			if !named[e.CallID] && e.Name == "" {
				t.Errorf("first delta of call %s carries no Name", e.CallID)
			}
			named[e.CallID] = true
		case helikon.TokenDelta, helikon.ReasoningDelta:
			content = true
		case helikon.ResponseInfo:
			if content {
				t.Error("ResponseInfo arrived after content")
			}
		}
	}
	if res.Err == nil && finishes != 1 {
		t.Errorf("stream has %d Finish events, want 1", finishes)
	}
	if res.Err != nil && finishes != 0 {
		t.Error("a failed stream reported Finish")
	}
}

func text(evs []helikon.ModelEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.(helikon.TokenDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func reasoning(evs []helikon.ModelEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if d, ok := ev.(helikon.ReasoningDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

// toolCalls assembles the tool calls of a stream, in first-seen order.
func toolCalls(evs []helikon.ModelEvent) []helikon.ToolUsePart {
	var out []helikon.ToolUsePart
	idx := map[string]int{}
	for _, ev := range evs {
		d, ok := ev.(helikon.ToolCallDelta)
		if !ok {
			continue
		}
		i, seen := idx[d.CallID]
		if !seen {
			i = len(out)
			idx[d.CallID] = i
			out = append(out, helikon.ToolUsePart{CallID: d.CallID})
		}
		if d.Name != "" {
			out[i].Name = d.Name
		}
		out[i].Args = append(out[i].Args, d.ArgsDelta...)
	}
	return out
}

func last[T helikon.ModelEvent](evs []helikon.ModelEvent) (T, bool) {
	for i := len(evs) - 1; i >= 0; i-- {
		if v, ok := evs[i].(T); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
