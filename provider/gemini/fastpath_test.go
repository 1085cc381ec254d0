package gemini

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// FuzzFastPath pits the fast path against encoding/json: any chunk, after
// the recorded first chunk of text.sse, translates alike on both paths.
func FuzzFastPath(f *testing.F) {
	rec, err := os.ReadFile("testdata/text.sse")
	if err != nil {
		f.Fatal(err)
	}
	var first []byte
	for _, line := range bytes.Split(rec, []byte("\n")) {
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if first == nil {
				first = data
				continue
			}
			f.Add(data) // the recorded chunks themselves
		}
	}
	for _, seed := range []string{
		`{"candidates":[{"content":{"parts":[{"text":"a\u00e9\"b"}],"role":"model"},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"a","thought":true}]},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[{"Text":"a"}]},"index":0}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":1}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":1}}`,
		`{"candidates":[{"content":{"parts":[{"text":"\xff"}]}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, chunk []byte) {
		if bytes.ContainsAny(chunk, "\r\n") {
			return // one event, one data line
		}
		body := "data: " + string(first) + "\n\ndata: " + string(chunk) + "\n\n"
		fast, fastErr := replay(t, body, false)
		slow, slowErr := replay(t, body, true)
		if !reflect.DeepEqual(fast, slow) || (fastErr == nil) != (slowErr == nil) {
			t.Fatalf("%s:\nfast path    %#v %v\ngeneral path %#v %v", chunk, fast, fastErr, slow, slowErr)
		}
	})
}

// A text chunk whose usageMetadata is null or not a count the general path
// decodes: both paths end the stream with the same usage, or the same
// error, where the fast path used to keep the chunk's raw usage and decode
// it (zeros for null) or drop it (a string) only at the end.
func TestFastPath_UsageTheGeneralPathWouldNotReadLeavesItThere(t *testing.T) {
	first := `{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1},"modelVersion":"m","responseId":"r"}`
	last := `{"candidates":[{"content":{"parts":[{"text":"c"}],"role":"model"},"finishReason":"STOP"}]}`
	for _, usage := range []string{`null`, `""`, `{"promptTokenCount":"5"}`, `{"promptTokenCount":1.5}`, `{"PromptTokenCount":7}`, `{"promptTokenCount":7}`} {
		middle := `{"candidates":[{"content":{"parts":[{"text":"b"}],"role":"model"}}],"usageMetadata":` + usage + `}`
		body := "data: " + first + "\n\ndata: " + middle + "\n\ndata: " + last + "\n\n"
		fast, fastErr := replay(t, body, false)
		slow, slowErr := replay(t, body, true)
		if !reflect.DeepEqual(fast, slow) || (fastErr == nil) != (slowErr == nil) {
			t.Errorf("usageMetadata %s:\nfast path    %#v %v\ngeneral path %#v %v", usage, fast, fastErr, slow, slowErr)
		}
	}
}
