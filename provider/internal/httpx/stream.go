package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/sse"
)

// Endpoint is where an adapter streams from and how it reads failures.
type Endpoint struct {
	Provider string
	Client   *http.Client
	URL      string
	Header   http.Header
	// Classify turns an error response into the error to report: any
	// non-2xx response, and a 2xx one whose body is a JSON error.
	Classify func(status int, h http.Header, body []byte) *helikon.ModelError
	// MaxEvent bounds one line or event of the stream (see
	// [sse.NewDecoder]); zero means [sse.DefaultMaxEvent].
	MaxEvent int
}

// Encode marshals the request body an adapter built, or reports why it
// could not be built (err): either way a request the API could not carry
// fails as an Other [helikon.ModelError] before anything is sent.
func Encode[T any](provider string, v *T, err error) ([]byte, error) {
	var body []byte
	if err == nil {
		body, err = json.Marshal(v)
	}
	if err != nil {
		return nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: provider, Message: "invalid request", Err: err}
	}
	return body, nil
}

// Stream posts body to e and, on success, reads the response as
// Server-Sent Events, calling handle with each event's data until handle
// returns false (it has yielded the terminal event or an error, or the
// consumer stopped). Every failure reaches yield as a [helikon.ModelError];
// a stream that ends while handle still wants more is a Transport error
// wrapping [ErrStreamTruncated]; a 2xx response that is not an event
// stream fails before reading (see [ErrNotEventStream]). The response body is closed on return,
// which is what releases the connection when the consumer breaks off or ctx
// is cancelled.
func Stream(ctx context.Context, e Endpoint, body []byte, yield func(helikon.ModelEvent, error) bool, handle func(data []byte) bool) {
	StreamToEOF(ctx, e, body, yield, handle, nil)
}

// StreamToEOF is [Stream] for an API whose stream has no terminal event
// (Gemini's streamGenerateContent simply ends): when the body ends while
// handle still wants more, atEOF decides. It returns true when what
// arrived is a whole response (it has yielded the closing events itself),
// false for a stream cut short, which ends as [Stream]'s truncated stream
// does. A nil atEOF is [Stream].
func StreamToEOF(ctx context.Context, e Endpoint, body []byte, yield func(helikon.ModelEvent, error) bool, handle func(data []byte) bool, atEOF func() bool) {
	resp, err := Post(ctx, e.Client, e.URL, e.Header, body, e.Classify)
	if err != nil {
		var me *helikon.ModelError
		if !errors.As(err, &me) {
			me = TransportError(ctx, e.Provider, err)
		}
		yield(nil, me)
		return
	}
	defer resp.Body.Close()
	events, me := eventStream(e, resp)
	if me != nil {
		yield(nil, me)
		return
	}
	readEvents(ctx, e.Provider, events, e.MaxEvent, yield, handle, atEOF)
}

// ReadEvents is the reading half of [Stream], for a body already in hand;
// maxEvent is [Endpoint.MaxEvent]. An event over that limit ends the
// stream with a non-retryable error wrapping [sse.ErrEventTooLarge]: a
// server that sent one will send it again.
func ReadEvents(ctx context.Context, provider string, body io.Reader, maxEvent int, yield func(helikon.ModelEvent, error) bool, handle func(data []byte) bool) {
	readEvents(ctx, provider, body, maxEvent, yield, handle, nil)
}

func readEvents(ctx context.Context, provider string, body io.Reader, maxEvent int, yield func(helikon.ModelEvent, error) bool, handle func(data []byte) bool, atEOF func() bool) {
	dec := sse.NewDecoder(body, maxEvent)
	for {
		ev, err := dec.Next()
		if err != nil {
			switch {
			case errors.Is(err, sse.ErrEventTooLarge) && ctx.Err() == nil:
				yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: provider, Message: "stream event over the size limit", Err: err})
				return
			case errors.Is(err, io.EOF) && ctx.Err() == nil && atEOF != nil && atEOF():
				return
			case errors.Is(err, io.EOF):
				err = ErrStreamTruncated
			}
			yield(nil, TransportError(ctx, provider, err))
			return
		}
		if !handle(ev.Data) {
			return
		}
	}
}

// Malformed is the error for an event whose JSON cannot be decoded.
func Malformed(provider string, err error) *helikon.ModelError {
	return &helikon.ModelError{Kind: helikon.ModelTransport, Provider: provider, Message: "malformed event", Err: err}
}

// MaxIndex bounds the content-block and tool-call indexes a stream may
// name. They count up from zero within one response, so a negative or
// larger one is a corrupt stream; trusting it would index out of range or
// size a slice by it.
const MaxIndex = 1 << 12

// CheckIndex returns a [Malformed] error when i is not a usable stream
// index (see [MaxIndex]), and nil when it is.
func CheckIndex(provider, what string, i int) *helikon.ModelError {
	if i >= 0 && i < MaxIndex {
		return nil
	}
	return Malformed(provider, fmt.Errorf("%s index %d outside [0, %d)", what, i, MaxIndex))
}
