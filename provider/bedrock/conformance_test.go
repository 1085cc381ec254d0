package bedrock_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// recording reads a .jsonl recording of event payloads and frames it with
// the SDK's eventstream encoder, one frame an event, or a .b64 recording
// of the binary stream itself.
func recording(path string) (providertest.Recording, error) {
	if strings.HasSuffix(path, ".b64") {
		return binaryRecording(path)
	}
	frames, err := readFrames(path)
	if err != nil {
		return providertest.Recording{}, err
	}
	enc, err := encodeEach(frames)
	if err != nil {
		return providertest.Recording{}, err
	}
	return providertest.Recording{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
		Body: bytes.Join(enc, nil), Frames: enc}, nil
}

// binaryRecording reads the base64 of a recorded event stream (after its
// "#" citation lines) and splits it at the messages' total lengths.
func binaryRecording(path string) (providertest.Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return providertest.Recording{}, err
	}
	var b64 strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			b64.WriteString(strings.TrimSpace(line))
		}
	}
	body, err := base64.StdEncoding.DecodeString(b64.String())
	if err != nil {
		return providertest.Recording{}, fmt.Errorf("%s: %w", path, err)
	}
	var frames [][]byte
	for rest := body; len(rest) > 0; {
		if len(rest) < 4 || int(binary.BigEndian.Uint32(rest)) > len(rest) {
			return providertest.Recording{}, fmt.Errorf("%s: a message runs past the end", path)
		}
		n := binary.BigEndian.Uint32(rest)
		frames, rest = append(frames, rest[:n]), rest[n:]
	}
	return providertest.Recording{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
		Body: body, Frames: frames}, nil
}

// oversizedPrelude is the start of an event-stream message announcing
// four times max bytes, its prelude checksum correct.
func oversizedPrelude(max int) []byte {
	p := make([]byte, 12)
	binary.BigEndian.PutUint32(p[0:], uint32(4*max))
	binary.BigEndian.PutUint32(p[4:], 0)
	binary.BigEndian.PutUint32(p[8:], crc32.ChecksumIEEE(p[:8]))
	return p
}

// toolUseInput returns the input of the toolUse block callID in a
// Converse request.
func toolUseInput(body []byte, callID string) (json.RawMessage, error) {
	var req struct {
		Messages []struct {
			Content []struct {
				ToolUse *struct {
					ToolUseID string          `json:"toolUseId"`
					Input     json.RawMessage `json:"input"`
				} `json:"toolUse"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	for _, m := range req.Messages {
		for _, c := range m.Content {
			if c.ToolUse != nil && c.ToolUse.ToolUseID == callID {
				return c.ToolUse.Input, nil
			}
		}
	}
	return nil, fmt.Errorf("no toolUse %s in %s", callID, body)
}

// The conformance suite over loopback HTTP, through the SDK's request
// building, signing and error reading and the adapter's event-stream
// reader, replaying the vercel/ai and pydantic/pydantic-ai recordings in
// testdata. No recording of parallel tool calls on Converse was found (see
// TestStream_SeveralToolCallsInOneTurn for the adapter's own check). Of errors, only
// a mid-stream exception was found recorded (as binary); the others are
// covered by TestStream_ErrorsMapToKinds with the protocol's error shape
// (x-amzn-errortype and a {"message"} body).
func TestModel_Conformance(t *testing.T) {
	newM := func(t testing.TB, baseURL string, opts ...bedrock.Option) helikon.Model {
		return newModel(t, baseURL, claude, opts...)
	}
	providertest.Run(t, providertest.Suite{
		Path:          "/model/" + claude + "/converse-stream",
		Load:          recording,
		CheckRequest:  checkRequest,
		CallArguments: toolUseInput,
		New:           func(t testing.TB, baseURL string) helikon.Model { return newM(t, baseURL) },
		NewLimited: func(t testing.TB, baseURL string, n int) helikon.Model {
			return newM(t, baseURL, bedrock.WithMaxEventSize(n))
		},
		OversizedEvent: oversizedPrelude,
		Text: providertest.Case{Fixture: "testdata/text.jsonl", Want: providertest.Want{
			Text:   strings.Join(textDeltas(t, "testdata/text.jsonl"), ""),
			Usage:  &helikon.Usage{InputTokens: 22, OutputTokens: 55},
			Finish: helikon.FinishStop,
		}},
		ToolCall: providertest.Case{Fixture: "testdata/tool_call.jsonl", Want: providertest.Want{
			Calls:  []helikon.ToolUsePart{{CallID: "tool-use-id", Name: "test-tool", Args: json.RawMessage(`{"value":"Sparkle Day"}`)}},
			Usage:  &helikon.Usage{InputTokens: 125, OutputTokens: 45},
			Finish: helikon.FinishToolCalls,
		}},
		RoundTrip: providertest.Case{Fixture: "testdata/text.jsonl", Want: providertest.Want{
			Text:   strings.Join(textDeltas(t, "testdata/text.jsonl"), ""),
			Usage:  &helikon.Usage{InputTokens: 22, OutputTokens: 55},
			Finish: helikon.FinishStop,
		}},
		// The suite's model, Claude Sonnet 4.5, takes native structured
		// output; the recording is Sonnet 4.6's.
		StructuredOutput: providertest.Case{Fixture: "testdata/native_structured_output.eventstream.b64", Want: providertest.Want{
			Text:   `{"city":"Paris","country":"France"}`,
			Usage:  &helikon.Usage{InputTokens: 180, OutputTokens: 12},
			Finish: helikon.FinishStop,
		}},
		Usage: providertest.Case{Fixture: "testdata/reasoning.jsonl", Want: providertest.Want{
			UsageOnly: true, Usage: &helikon.Usage{InputTokens: 51, OutputTokens: 94}, Finish: helikon.FinishStop,
		}},
		Malformed: map[string]string{
			"ToolInputForABlockNothingOpened": "testdata/tool_input_unopened_block.jsonl",
		},
		Errors: map[string]providertest.Case{
			"ModelStreamErrorExceptionIsUnavailable": {Fixture: "testdata/model_stream_error.eventstream.b64",
				Want: providertest.Want{Err: helikon.ModelUnavailable}},
		},
	})
}

// textDeltas returns the text deltas of a recording, in order: the text
// the adapter must stream.
func textDeltas(t *testing.T, path string) []string {
	var out []string
	for _, f := range loadFrames(t, path) {
		var ev struct {
			Delta struct {
				Text string `json:"text"`
			} `json:"delta"`
		}
		if f.typ == "contentBlockDelta" && json.Unmarshal(f.payload, &ev) == nil {
			out = append(out, ev.Delta.Text)
		}
	}
	return out
}
