package eventcodec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/internal/cputime"
	"github.com/paigasus/helikon/session"
)

// slowDecode is the general decoder the fast path stands in for: the
// event's own UnmarshalJSON.
func slowDecode(data []byte) (helikon.SessionEvent, error) {
	var e helikon.SessionEvent
	err := json.Unmarshal(data, &e)
	return e, err
}

// decodeEvent is the one-pass decoder with no strings shared.
func decodeEvent(data []byte, e *helikon.SessionEvent) bool { return decodeEventNames(data, e, nil) }

// decodeCorpus is what the encoder writes for every kind of event, and
// hand-written variations the fast path must give up on or agree with.
func decodeCorpus(t testing.TB) [][]byte {
	evs := []helikon.SessionEvent{
		session.UserMessage(helikon.TextPart{Text: "héllo \"q\" \\ \n\t\u2028 \x00 <tag> 😀"}, helikon.ImagePart{MediaType: "image/png", Data: []byte{0x89, 'P', 0}}, helikon.ImagePart{URL: "https://x/a.png"}),
		session.AssistantMessage([]helikon.ContentPart{
			helikon.ReasoningPart{Text: "t", Signature: "s", Data: "opaque", ID: "rs"},
			helikon.TextPart{Text: "x"},
			helikon.ToolUsePart{CallID: "c", Name: "n", Args: json.RawMessage(`{"a":[1,2.5,true,null,"s"]}`)},
			helikon.ToolUsePart{CallID: "c2", Name: "n", Args: json.RawMessage(`{"a":`)},
		}, "agent"),
		session.ToolCalled("c", "lookup", json.RawMessage(` {"q": "x\u00e9"} `)),
		session.ToolCalled("c", "lookup", json.RawMessage("{\"bad\":\"\xff\"")),
		session.ToolReturned("c", helikon.TextPart{Text: `{"total":42}`}),
		{Kind: helikon.KindToolReturned, CallID: "c", IsError: true, Content: []helikon.ContentPart{helikon.ToolResultPart{CallID: "i", Content: []helikon.ContentPart{helikon.TextPart{Text: "boom"}}}}},
		session.HandoffOccurred("a", "b"),
		{Kind: helikon.KindCompacted, Summary: "s", OriginalCount: 5, KeptCount: 2},
		{Kind: helikon.KindUserMessage, Content: []helikon.ContentPart{}},
	}
	var out [][]byte
	for i, ev := range evs {
		ev.Seq = helikon.SequenceID(i)
		ev.Time = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.FixedZone("X", 3600))
		data, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, data)
	}
	for _, s := range []string{
		`{"type":"user_message","content":null}`,
		`{"Type":"user_message"}`,
		`{"type":"user_message","seq":1.5}`,
		`{"type":"user_message","seq":01}`,
		`{"type":"user_message"} x`,
		`{"type":"user_message","content":[{"type":"text","text":"\ud800\u0041"}]}`,
		`{"type":"user_message","content":[{"type":"text","text":"\ud83d\ude00 \u00"}]}`,
		`{"type":"user_message","content":[{"type":"text","text":"a\'b"}]}`,
		`{"type":"user_message","content":[{"type":"nope"}]}`,
		`{"type":"user_message","content":[{"text":"no type"}]}`,
		`{"type":"tool_called","args":5}`,
		`{"type":"tool_called","args":[1,{"a":"]"}]}`,
		`{"type":"tool_called","args_bytes":"AAE="}`,
		`{"type":"tool_called","args_bytes":"!!"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-01-02 03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05.1Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05.123456789Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05.1234567891Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05.Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05.12a4Z"}`,
		`{"type":"tool_called","ts":"2026-02-29T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2024-02-29T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-04-31T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-13-01T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-01-00T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T24:00:00Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T23:59:60Z"}`,
		`{"type":"tool_called","ts":"2026-01-02t03:04:05z"}`,
		`{"type":"tool_called","ts":"0000-01-02T03:04:05Z"}`,
		`{"type":"tool_called","ts":"+026-01-02T03:04:05Z"}`,
		`{"type":"tool_called","ts":"2026-01-02T03:04:05+00:00"}`,
		`{"type":"user_message","content":[{"type":"image","data":"AAE="},{"type":"reasoning","data":"x\ny"}]}`,
		`{"type":"user_message","content":[{"type":"text","content":[{"type":"x"}]}]}`,
		`{"type":"a","type":"b","is_error":true,"is_error":false}`,
		`{"type":"user_message","original_count":99999999999999999999}`,
		`{}`,
		` { } `,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// agree checks the fast path against the general decoder on data: when
// the fast path accepts, the general one accepts too, with the same event.
func agree(t *testing.T, data []byte) {
	var fast helikon.SessionEvent
	if !decodeEvent(data, &fast) {
		return
	}
	slow, err := slowDecode(data)
	if err != nil {
		t.Fatalf("fast path accepted what the decoder rejects (%v): %q", err, data)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast and general decoders disagree on %q:\nfast %#v\nslow %#v", data, fast, slow)
	}
}

// agreeShared checks that a [Decoder] that has decoded the corpus
// decodes data as the general decoder does.
func agreeShared(t *testing.T, corpus [][]byte, data []byte) {
	var d Decoder
	for _, c := range corpus {
		var ev helikon.SessionEvent
		_ = d.decode(c, &ev)
	}
	var shared helikon.SessionEvent
	sharedErr := d.decode(data, &shared)
	slow, err := slowDecode(data)
	if (sharedErr == nil) != (err == nil) || (err == nil && !reflect.DeepEqual(shared, slow)) {
		t.Fatalf("Decoder and the general decoder disagree on %q:\nshared %#v, %v\nslow %#v, %v", data, shared, sharedErr, slow, err)
	}
}

// The identifiers a log repeats decode into one string: a cached session
// holds one copy of its agent's name, not one per answer.
func TestDecoder_RepeatedNamesShareOneString(t *testing.T) {
	var d Decoder
	decoded := map[string][]helikon.SessionEvent{}
	for i := range 3 {
		for _, ev := range []helikon.SessionEvent{
			session.ToolCalled(fmt.Sprint("call_", i), "lookup_spending", json.RawMessage(`{}`)),
			session.ToolReturned(fmt.Sprint("call_", i), helikon.TextPart{Text: "{}"}),
			session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "ok"}}, "budget-assistant"),
		} {
			data, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			var got helikon.SessionEvent
			if err := d.decode(data, &got); err != nil {
				t.Fatal(err)
			}
			decoded[string(ev.Kind)] = append(decoded[string(ev.Kind)], got)
		}
	}
	same := func(what string, a, b string) {
		t.Helper()
		if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s: %q and %q are separate copies", what, a, b)
		}
	}
	calls, results, answers := decoded["tool_called"], decoded["tool_returned"], decoded["assistant_message"]
	for i := range 3 {
		same("a result's call id", calls[i].CallID, results[i].CallID)
		same("the tool's name", calls[0].Name, calls[i].Name)
		same("the agent's name", answers[0].Agent, answers[i].Agent)
	}
}

// The texts and arguments of one log's events share allocations, and what
// a caller does to one event's arguments never reaches another event.
func TestDecoder_SharedBytesStayEachEventsOwn(t *testing.T) {
	var d Decoder
	var got []helikon.SessionEvent
	for i := range 3 {
		data, err := json.Marshal(session.ToolCalled(fmt.Sprint("call_", i), "t", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))))
		if err != nil {
			t.Fatal(err)
		}
		var ev helikon.SessionEvent
		if err := d.decode(data, &ev); err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if cap(got[0].Args) != len(got[0].Args) {
		t.Fatalf("shared arguments have capacity %d beyond their length %d: an append would write into the next", cap(got[0].Args), len(got[0].Args))
	}
	got[0].Args = append(got[0].Args, " trailing"...)
	got[0].Args[1] = 'X'
	for i, ev := range got[1:] {
		if want := fmt.Sprintf(`{"n":%d}`, i+1); string(ev.Args) != want {
			t.Errorf("event %d's arguments became %s after a change to event 0's, want %s", i+1, ev.Args, want)
		}
	}
	for _, text := range []string{
		`a short text of a chat turn`,
		`a short text\nwith a newline, \"quotes\" and \u003cb\u003e, as json.Marshal writes them`,
	} {
		msg := []byte(`{"type":"user_message","ts":"2026-12-02T01:00:00Z","content":[{"type":"text","text":"` + text + `"}]}`)
		n := testing.AllocsPerRun(100, func() {
			var ev helikon.SessionEvent
			_ = d.decode(msg, &ev)
		})
		if n > 2 {
			t.Errorf("a one-part user message (%s) decodes in %.1f allocations, want at most 2 (the part slice and its box; the text shares)", text, n)
		}
	}
}

func TestDecodeEvent_AgreesWithTheGeneralDecoder(t *testing.T) {
	accepted := 0
	corpus := decodeCorpus(t)
	for _, data := range corpus {
		agree(t, data)
		agreeShared(t, corpus, data)
		var ev helikon.SessionEvent
		if decodeEvent(data, &ev) {
			accepted++
		}
	}
	// The encoder's own output must take the fast path.
	for i, data := range corpus[:9] {
		var ev helikon.SessionEvent
		if !decodeEvent(data, &ev) && !strings.Contains(string(data), `"args_bytes"`) {
			t.Errorf("encoder output %d took the slow path: %s", i, data)
		}
	}
	if accepted < 9 {
		t.Fatalf("fast path accepted %d of the corpus", accepted)
	}
}

func FuzzDecodeEvent(f *testing.F) {
	corpus := decodeCorpus(f)
	for _, data := range corpus {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agree(t, data)
		agreeShared(t, corpus, data)
	})
}

// BenchmarkDecodeEvent_FastVsGeneral decodes the stored form of a typical
// tool round (a user message, an assistant's text with its tool call, the
// tool's result, the answer) with the one-pass decoder and with the
// general one the backends used before it (json.Unmarshal's scan, then the
// wire structs: what a load did per event), paired in every iteration
// ([benchpair.Run]). It reports the time and the allocations per event of
// each and the ratio (x-onepass: general over one-pass), and, where the
// process's CPU time can be read, each one's CPU time per event over 2,000
// untimed rounds (cpu-ns-*/event), which a loaded machine inflates less.
func BenchmarkDecodeEvent_FastVsGeneral(b *testing.B) {
	var payloads [][]byte
	for _, ev := range []helikon.SessionEvent{
		session.UserMessage(helikon.TextPart{Text: "How am I doing on my dining budget this month?"}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "Let me look at this month's dining transactions."}}, "budget-assistant"),
		session.ToolCalled("call_1", "lookup_spending", json.RawMessage(`{"category":"Dining","month":"2026-11"}`)),
		session.ToolReturned("call_1", helikon.TextPart{Text: `{"total":312.4,"count":18,"budget":400}`}),
		session.AssistantMessage([]helikon.ContentPart{helikon.TextPart{Text: "You spent $312.40 on dining in 18 transactions, 78% of your $400 budget, with 9 days to go."}}, "budget-assistant"),
	} {
		data, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		payloads = append(payloads, data)
	}
	onePass := func() {
		for _, p := range payloads {
			var ev helikon.SessionEvent
			if !decodeEvent(p, &ev) {
				b.Fatal("one-pass decoder refused the encoder's output")
			}
		}
	}
	general := func() {
		for _, p := range payloads {
			var ev helikon.SessionEvent
			if err := json.Unmarshal(p, &ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	// shared is the round as a load decodes it: one Decoder for the
	// log (new for each round, so only what one round repeats is shared).
	shared := func() {
		var d Decoder
		for _, p := range payloads {
			var ev helikon.SessionEvent
			if err := d.decode(p, &ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	n := float64(len(payloads))
	allocsShared := testing.AllocsPerRun(10, shared) / n
	allocsOnePass := testing.AllocsPerRun(10, onePass) / n
	allocsGeneral := testing.AllocsPerRun(10, general) / n
	cpuOnePass, cpuGeneral, cpuOK := cputime.PerCall(onePass, 2000), 0.0, false
	if cpuOnePass > 0 {
		cpuGeneral, cpuOK = cputime.PerCall(general, 2000), true
	}
	tOnePass, tGeneral := benchpair.Run(b, "onepass", onePass, "general", general)
	events := n * float64(b.N)
	b.ReportMetric(float64(tOnePass.Nanoseconds())/events, "ns-onepass/event")
	b.ReportMetric(float64(tGeneral.Nanoseconds())/events, "ns-general/event")
	b.ReportMetric(allocsOnePass, "allocs-onepass/event")
	b.ReportMetric(allocsShared, "allocs-shared/event")
	b.ReportMetric(allocsGeneral, "allocs-general/event")
	if cpuOK {
		b.ReportMetric(cpuOnePass/n, "cpu-ns-onepass/event")
		b.ReportMetric(cpuGeneral/n, "cpu-ns-general/event")
	}
}

func slowProjection(data []byte) (helikon.SequenceID, []helikon.Item, error) {
	var w struct {
		Seq   helikon.SequenceID `json:"seq"`
		Items []helikon.Item     `json:"items"`
	}
	err := json.Unmarshal(data, &w)
	return w.Seq, w.Items, err
}

func projectionCorpus(t testing.TB) [][]byte {
	var evs []helikon.SessionEvent
	for _, data := range decodeCorpus(t)[:9] {
		var ev helikon.SessionEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	var p helikon.Projection
	p.Apply(evs...)
	data, err := json.Marshal(&p)
	if err != nil {
		t.Fatal(err)
	}
	return [][]byte{data, []byte(`{"seq":-1,"items":[]}`), []byte(`{"seq":3,"items":[{"role":"system","content":[{"type":"text","text":"s"}]}]}`),
		[]byte(`{"seq":3,"items":null}`), []byte(`{"seq":3,"items":[{"role":"user","content":null}]}`), []byte(`{"items":[{"Role":"user"}]}`)}
}

func agreeProjection(t *testing.T, data []byte) {
	seq, items, ok := decodeProjection(data)
	if !ok {
		return
	}
	wseq, witems, err := slowProjection(data)
	if err != nil {
		t.Fatalf("fast path accepted what the decoder rejects (%v): %q", err, data)
	}
	if seq != wseq || !reflect.DeepEqual(items, witems) {
		t.Fatalf("fast and general decoders disagree on %q", data)
	}
}

func TestDecodeProjection_AgreesWithTheGeneralDecoderAndRoundTrips(t *testing.T) {
	corpus := projectionCorpus(t)
	for _, data := range corpus {
		agreeProjection(t, data)
	}
	if _, _, ok := decodeProjection(corpus[0]); !ok {
		t.Fatalf("encoder output took the slow path: %s", corpus[0])
	}
	var p helikon.Projection
	if err := json.Unmarshal(corpus[0], &p); err != nil {
		t.Fatal(err)
	}
	again, err := json.Marshal(&p)
	if err != nil || string(again) != string(corpus[0]) {
		t.Fatalf("round trip: %s, %v; want %s", again, err, corpus[0])
	}
}

func FuzzDecodeProjection(f *testing.F) {
	for _, data := range projectionCorpus(f) {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { agreeProjection(t, data) })
}

// parseUTC agrees with time.Time's UnmarshalText wherever it accepts.
func FuzzParseUTC(f *testing.F) {
	for _, s := range []string{"2026-01-02T03:04:05Z", "2026-01-02T03:04:05.000000001Z", "2024-02-29T23:59:59.5Z", "2026-04-31T03:04:05Z", "9999-12-31T23:59:59.999999999Z"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseUTC(b)
		if !ok {
			return
		}
		var want time.Time
		if err := want.UnmarshalText(b); err != nil {
			t.Fatalf("parseUTC accepted %q, which UnmarshalText rejects: %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("parseUTC(%q) = %v, UnmarshalText gives %v", b, got, want)
		}
	})
}

func TestParseUTC_TheEncodersFormRoundTrips(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 12, 1, 10, 37, 45, 0, time.UTC),
		time.Date(2026, 12, 1, 10, 37, 45, 100, time.UTC),
		time.Date(2024, 2, 29, 0, 0, 0, 999999999, time.UTC),
		time.Now().UTC(),
	} {
		b, err := tm.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		got, ok := parseUTC(b)
		if !ok || !reflect.DeepEqual(got, tm.Round(0)) {
			t.Errorf("parseUTC(%q) = %v, %v; want %v", b, got, ok, tm)
		}
	}
}
