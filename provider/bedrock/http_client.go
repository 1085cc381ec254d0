package bedrock

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go/middleware"
	"github.com/paigasus/helikon/provider/internal/httpx"
	"github.com/paigasus/helikon/provider/internal/sse"
)

// eventStreamType is the content type of a ConverseStream response.
const eventStreamType = "application/vnd.amazon.eventstream"

// defaultMaxEventSize bounds one event-stream message, as the HTTP
// adapters bound one SSE event.
const defaultMaxEventSize = 8 << 20

// preludeLen is the size of an event-stream message's prelude: total
// length, headers length and the prelude's CRC-32.
const preludeLen = 12

// httpClient is the HTTP client every ConverseStream call goes through. It
// wraps the SDK client's own and does three things the SDK does not:
//
//   - It hides io.WriterTo on the request body. smithy-go's request body
//     returns io.EOF from WriteTo once the SDK has closed it, which the SDK
//     does as soon as the response headers arrive. When they arrive before
//     net/http's write loop has made its final read of the body (a fast
//     server), net/http takes that io.EOF for a write failure and closes the
//     connection under the response being read: the event stream then fails
//     with "use of closed network connection" (aws-sdk-go-v2 bedrockruntime
//     v1.63.13, smithy-go v1.28.9; WriterTo must not return io.EOF,
//     golang/go#44411). A plain reader returns io.EOF from Read, which
//     io.Copy takes as the end.
//   - It turns a 2xx response that is not an event stream (a gateway's
//     HTML page, an empty body) into a non-retryable error quoting what came
//     back, instead of a "truncated stream" that would be retried.
//   - It takes the body of a successful response for the adapter to read
//     (see wire.go), leaving the SDK an empty stream.
type httpClient struct {
	next bedrockruntime.HTTPClient
	// body is the event stream of the call's successful response.
	body io.ReadCloser
}

// install is the per-call client option that puts c in front of the
// client the SDK would use, and takes the SDK's event-stream reader out of
// the call: the adapter reads the stream, and that reader's decoder state
// is shared by every call on a client (a data race between concurrent
// streams in smithy-go v1.28.9's eventstream Codec).
func (c *httpClient) install(o *bedrockruntime.Options) {
	c.next = o.HTTPClient
	if c.next == nil {
		c.next = http.DefaultClient
	}
	o.HTTPClient = c
	o.APIOptions = append(o.APIOptions[:len(o.APIOptions):len(o.APIOptions)], removeEventStreamReader)
}

// removeEventStreamReader removes the SDK's event-stream deserializer from
// a call's middleware stack; a stack without it is left as it is.
func removeEventStreamReader(stack *middleware.Stack) error {
	_, _ = stack.Deserialize.Remove("OperationEventStreamDeserializer")
	return nil
}

// Do implements bedrockruntime.HTTPClient.
func (c *httpClient) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = plainBody{req.Body}
	}
	resp, err := c.next.Do(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	ct := resp.Header.Get("Content-Type")
	body := resp.Body
	if mt, _, perr := mime.ParseMediaType(ct); perr != nil || mt != eventStreamType {
		br := bufio.NewReader(resp.Body)
		if !startsWithPrelude(br) {
			data, _ := io.ReadAll(io.LimitReader(br, 64<<10))
			resp.Body.Close()
			c.body, resp.Body = errorBody{&notEventStreamError{status: resp.StatusCode,
				msg: fmt.Sprintf("expected an event stream, got content type %q and %s", ct, httpx.DescribeBody(data))}}, http.NoBody
			return resp, nil
		}
		body = readCloser{br, resp.Body}
	}
	c.body, resp.Body = body, http.NoBody
	return resp, nil
}

// startsWithPrelude reports whether the body starts with an event-stream
// prelude whose checksum holds: a stream mislabelled by a proxy still is
// one, an HTML page or an empty body is not.
func startsWithPrelude(br *bufio.Reader) bool {
	p, err := br.Peek(preludeLen)
	if err != nil {
		return false
	}
	return crc32.ChecksumIEEE(p[:8]) == binary.BigEndian.Uint32(p[8:12])
}

// plainBody is a request body with only Read and Close (see [httpClient]).
type plainBody struct{ io.ReadCloser }

type readCloser struct {
	io.Reader
	io.Closer
}

// notEventStreamError is the cause of a 2xx response that is not an event
// stream.
type notEventStreamError struct {
	status int
	msg    string
}

func (e *notEventStreamError) Error() string { return e.msg }
func (e *notEventStreamError) Unwrap() error { return httpx.ErrNotEventStream }

// errorBody fails every read with err; the SDK's event-stream reader
// reports it as the stream's error.
type errorBody struct{ err error }

func (b errorBody) Read([]byte) (int, error) { return 0, b.err }
func (b errorBody) Close() error             { return nil }

// eventTooLargeError names the size and the limit.
type eventTooLargeError struct{ size, max int64 }

func (e *eventTooLargeError) Error() string {
	return fmt.Sprintf("event-stream message too large: %d bytes, limit %d (WithMaxEventSize)", e.size, e.max)
}

// Unwrap returns the sentinel every adapter's oversized event wraps.
func (e *eventTooLargeError) Unwrap() error { return sse.ErrEventTooLarge }
