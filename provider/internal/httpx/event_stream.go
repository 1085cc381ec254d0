package httpx

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/textcut"
)

// ErrNotEventStream is the cause of the error for a successful response
// whose body is not an event stream: an HTML login or gateway page, an
// empty body, or a whole JSON completion from a server that ignored
// "stream": true. Retrying such a request gets the same answer.
var ErrNotEventStream = errors.New("response is not an event stream")

// quotedPrefix is how much of an unexpected body an error quotes: enough to
// recognise a login page or a gateway's message, short enough for a log.
const quotedPrefix = 300

// eventStream returns the body of a 2xx response to read as Server-Sent
// Events. A response labelled text/event-stream is one; a response with
// another or no content type is accepted only when its body starts like an
// event stream (some compatible servers label it wrongly). Anything else
// fails here, not as a stream that "ended early", which would be retried:
// a JSON body holding an "error" member is classified as the API's error
// (e.g. an invalid key), and any other body as a non-retryable error
// quoting the status, the content type and the start of the body.
func eventStream(e Endpoint, resp *http.Response) (io.Reader, *helikon.ModelError) {
	ct := resp.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "text/event-stream" {
		return resp.Body, nil
	}
	br := bufio.NewReader(resp.Body)
	if looksLikeEvents(br) {
		return br, nil
	}
	body, _ := io.ReadAll(io.LimitReader(br, maxErrorBody))
	if hasErrorMember(body) {
		return nil, e.Classify(resp.StatusCode, resp.Header, body)
	}
	return nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: e.Provider, StatusCode: resp.StatusCode,
		Message: fmt.Sprintf("expected an event stream, got content type %q and %s", ct, DescribeBody(body)),
		Err:     ErrNotEventStream}
}

// sseStarts are the ways an event stream's first line can begin.
var sseStarts = [][]byte{[]byte("data:"), []byte("event:"), []byte("id:"), []byte("retry:"), []byte(":")}

// bom is the byte-order mark an event stream may start with.
var bom = []byte("\xef\xbb\xbf")

// looksLikeEvents reports whether the buffered body starts with an SSE
// field or comment. It waits only for the few bytes it needs, so a stream
// is not held back until a buffer fills.
func looksLikeEvents(br *bufio.Reader) bool {
	for n := 1; n <= len("retry:")+len(bom)+2; n++ {
		raw, err := br.Peek(n)
		head := bytes.TrimLeft(bytes.TrimPrefix(raw, bom), "\r\n")
		undecided := bytes.HasPrefix(bom, raw)
		for _, s := range sseStarts {
			if bytes.HasPrefix(head, s) {
				return true
			}
			undecided = undecided || bytes.HasPrefix(s, head)
		}
		if !undecided || err != nil {
			return false
		}
	}
	return false
}

// hasErrorMember reports whether body is a JSON object with a non-null
// "error" member, the envelope every provider wraps its errors in.
func hasErrorMember(body []byte) bool {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &env) == nil && len(env.Error) > 0 && string(env.Error) != "null"
}

// DescribeBody quotes the start of an unexpected body, for an error message.
func DescribeBody(body []byte) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return "an empty body"
	}
	head, cut := textcut.Prefix(body, quotedPrefix)
	if !cut {
		return "body " + strconv.Quote(string(body))
	}
	return "body starting " + strconv.Quote(string(head)) + "…"
}
