package bedrock_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/paigasus/helikon/provider/bedrock"
)

// frame is one event-stream message the fake endpoint sends.
type frame struct {
	kind    string // "event" or "exception"
	typ     string // :event-type or :exception-type
	payload []byte
}

// loadFrames reads a recording of one {"<eventType>": payload} object per
// line (lines starting with # cite the source).
func loadFrames(t testing.TB, path string) []frame {
	t.Helper()
	out, err := readFrames(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFrames(path string) ([]frame, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []frame
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var ev map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &ev); err != nil || len(ev) != 1 {
			return nil, fmt.Errorf("%s: %q is not one event: %v", path, line, err)
		}
		for k, v := range ev {
			out = append(out, frame{kind: "event", typ: k, payload: v})
		}
	}
	return out, sc.Err()
}

// encode frames them with the AWS SDK's own encoder.
func encode(t testing.TB, frames []frame) []byte {
	t.Helper()
	out, err := encodeEach(frames)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Join(out, nil)
}

// encodeEach frames them one by one.
func encodeEach(frames []frame) ([][]byte, error) {
	var out [][]byte
	enc := eventstream.NewEncoder()
	for _, f := range frames {
		var buf bytes.Buffer
		var h eventstream.Headers
		h.Set(":message-type", eventstream.StringValue(f.kind))
		if f.kind == "exception" {
			h.Set(":exception-type", eventstream.StringValue(f.typ))
		} else {
			h.Set(":event-type", eventstream.StringValue(f.typ))
		}
		h.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(&buf, eventstream.Message{Headers: h, Payload: f.payload}); err != nil {
			return nil, err
		}
		out = append(out, buf.Bytes())
	}
	return out, nil
}

// fake is a ConverseStream endpoint: it checks each request's SigV4
// signature (refusing a bad one with AWS's InvalidSignatureException and
// failing the test), answers it with the next response and keeps the
// request bodies.
type fake struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
	// acceptBadSignatures is for the test of a wrongly signed request:
	// the fake still refuses it, without failing the test.
	acceptBadSignatures bool
	// clock is how far the fake's clock is ahead of the machine's: it
	// checks signatures and dates its responses by it. clockStep moves it
	// on after each request.
	clock, clockStep time.Duration
	// requests counts every request, refused ones included.
	requests int
}

type response struct {
	status int
	header map[string]string
	body   []byte
	// hang, when set, keeps the connection open after body until the
	// client goes.
	hang bool
}

func newFake(t *testing.T, responses ...response) *fake {
	t.Helper()
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		now := time.Now().Add(f.clock)
		f.clock += f.clockStep
		f.requests++
		f.mu.Unlock()
		w.Header().Set("Date", now.UTC().Format(http.TimeFormat))
		if err := checkSigV4At(r, body, now); err != nil {
			if !f.acceptBadSignatures {
				t.Errorf("fake Bedrock: %v", err)
			}
			signatureError(w, err)
			return
		}
		f.mu.Lock()
		n := len(f.bodies)
		f.bodies = append(f.bodies, body)
		f.paths = append(f.paths, r.URL.EscapedPath())
		f.mu.Unlock()
		if n >= len(responses) {
			http.Error(w, "no response left", http.StatusTeapot)
			return
		}
		rs := responses[n]
		for k, v := range rs.header {
			w.Header().Set(k, v)
		}
		if rs.status == 0 {
			rs.status = 200
			w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		}
		if !rs.hang {
			w.Header().Set("Content-Length", strconv.Itoa(len(rs.body)))
		}
		w.WriteHeader(rs.status)
		_, _ = w.Write(rs.body)
		w.(http.Flusher).Flush()
		if rs.hang {
			<-r.Context().Done()
			return
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func stream(t testing.TB, path string) response {
	return response{body: encode(t, loadFrames(t, path))}
}

// newModel is a model that talks to url with static credentials, its
// requests signed as for AWS; its HTTP client checks each signature too,
// for servers that do not (the conformance suite's).
func newModel(t testing.TB, url, modelID string, opts ...bedrock.Option) *bedrock.Model {
	t.Helper()
	cfg := aws.Config{Region: testRegion, Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		HTTPClient: &http.Client{Transport: verifyingTransport{}}}
	m, err := bedrock.New(cfg, modelID, append([]bedrock.Option{bedrock.WithBaseEndpoint(url)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (f *fake) lastBody(t *testing.T) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.bodies) == 0 {
		t.Fatal("no request")
	}
	body := f.bodies[len(f.bodies)-1]
	checkRequest(t, body)
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
