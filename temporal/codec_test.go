package temporal

import (
	"strings"
	"sync"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
)

// sealCodec stands for a codec of the user's own (encryption, say): it
// counts the payloads it wraps by their encoding, which shows what the
// compressing converter hands it.
type sealCodec struct {
	mu      sync.Mutex
	encoded map[string]int
	decoded int
}

func (c *sealCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		c.encoded[string(p.Metadata[converter.MetadataEncoding])]++
		b, err := p.Marshal()
		if err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/sealed")}, Data: b}
	}
	return out, nil
}

func (c *sealCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.Metadata[converter.MetadataEncoding]) != "binary/sealed" {
			out[i] = p
			continue
		}
		c.decoded++
		out[i] = &commonpb.Payload{}
		if err := out[i].Unmarshal(p.Data); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// documentRun is a run whose tool returns a long, repetitive document,
// which every later payload of the run carries.
func documentRun(t *testing.T) *helikon.LLMAgent {
	doc := strings.Repeat("the quarterly ledger balances to the cent; ", 1200)
	read := helikon.MustTool("read", "Reads the document.", func(_ *helikon.ToolContext, _ struct{}) (string, error) { return doc, nil })
	return mustAgent(t, "reader", mock.Scripted(
		mock.ToolCalls(mock.Call{ID: "c1", Name: "read", Args: `{}`}),
		mock.ToolCalls(mock.Call{ID: "c2", Name: "read", Args: `{}`}),
		mock.Text("it balances"),
	), helikon.WithTools(read))
}

// TestCompressingDataConverter_RunRoundTripsCompressed runs the same run
// with the default data converter and with the compressing one in the
// SDK's test environment: the result and the events are the same, and the
// payloads that reached the user's codec were compressed.
func TestCompressingDataConverter_RunRoundTripsCompressed(t *testing.T) {
	in := runInput{Agent: "reader", Input: helikon.UserText("go")}
	wantOut, wantEvs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{documentRun(t)}}, in)
	if err != nil {
		t.Fatal(err)
	}
	seal := &sealCodec{encoded: map[string]int{}}
	out, evs, err := runInEnv(t, workerConfig{agents: []*helikon.LLMAgent{documentRun(t)}}, in, func(env *testsuite.TestWorkflowEnvironment) {
		env.SetDataConverter(CompressingDataConverter(seal))
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Output != "it balances" || out.Output != wantOut.Output || out.Usage != wantOut.Usage || out.Events != wantOut.Events {
		t.Fatalf("compressed run's result %+v, default converter's %+v", out, wantOut)
	}
	if g, w := strings.Join(encodeAll(t, evs), "\n"), strings.Join(encodeAll(t, wantEvs), "\n"); g != w {
		t.Fatalf("compressed run's events differ\n got:\n%s\nwant:\n%s", g, w)
	}
	if seal.encoded["binary/zlib"] == 0 || seal.decoded == 0 {
		t.Fatalf("the user's codec wrapped %v payloads by encoding and unwrapped %d; want compressed payloads through it", seal.encoded, seal.decoded)
	}
}

// TestCompressingDataConverter_CompressesWhatShrinks: a large payload is
// stored zlib-encoded and smaller, a small one as it is, and both decode
// to the value.
func TestCompressingDataConverter_CompressesWhatShrinks(t *testing.T) {
	dc := CompressingDataConverter()
	for _, tc := range []struct {
		name     string
		value    string
		encoding string
	}{
		{"a long conversation", strings.Repeat("the quarterly ledger balances to the cent; ", 1200), "binary/zlib"},
		{"a short answer", "ok", "json/plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := converter.GetDefaultDataConverter().ToPayload(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			p, err := dc.ToPayload(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(p.Metadata[converter.MetadataEncoding]); got != tc.encoding {
				t.Fatalf("encoding %q, want %q", got, tc.encoding)
			}
			if tc.encoding == "binary/zlib" && len(p.Data)*4 > len(plain.Data) {
				t.Fatalf("compressed to %d bytes from %d; want at most a quarter", len(p.Data), len(plain.Data))
			}
			var back string
			if err := dc.FromPayload(p, &back); err != nil || back != tc.value {
				t.Fatalf("decoded %d bytes (%v), want the value back", len(back), err)
			}
		})
	}
}
