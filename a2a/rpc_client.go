package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/google/uuid"

	"github.com/paigasus/helikon/internal/jsondepth"
	"github.com/paigasus/helikon/internal/sse"
)

// maxReplyDepth bounds the JSON nesting of a reply, or of one event of a
// stream, as [maxRequestDepth] bounds a request's: checked before the
// reply is decoded, since the decoder recurses as deep as the JSON nests.
const maxReplyDepth = maxRequestDepth

// rpcClient speaks the A2A protocol's JSON-RPC binding to one endpoint:
// the three calls a [RemoteAgent] makes (message/send, message/stream,
// tasks/cancel). It is this package's own, not a2a-go's a2aclient, because
// that package also holds the gRPC transport: importing it linked gRPC and
// the A2A and Google API protocol-buffer descriptors into every program
// that imports this package, and their package inits ran at each start
// (16 % of the instructions of a `helikon run` on a mock model). A remote
// is reached over JSON-RPC only, as [ErrInvalidCard] has always said.
type rpcClient struct {
	url  string
	http *http.Client
	// maxEvent bounds one event of a stream: the response's bound, which
	// the client's transport enforces on the whole body too.
	maxEvent int
}

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
	ID      string `json:"id"`
}

// rpcResponse is a JSON-RPC 2.0 response, or one event of a stream.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// err returns the a2a-go error the code stands for, as a2a-go's client
// does, with the server's detail (data.error) before it.
func (e *rpcError) err() error {
	var sentinel error
	switch e.Code {
	case -32700:
		sentinel = a2apb.ErrParseError
	case -32600:
		sentinel = a2apb.ErrInvalidRequest
	case -32601:
		sentinel = a2apb.ErrMethodNotFound
	case -32602:
		sentinel = a2apb.ErrInvalidParams
	case -32000:
		sentinel = a2apb.ErrServerError
	case -32001:
		sentinel = a2apb.ErrTaskNotFound
	case -32002:
		sentinel = a2apb.ErrTaskNotCancelable
	case -32003:
		sentinel = a2apb.ErrPushNotificationNotSupported
	case -32004:
		sentinel = a2apb.ErrUnsupportedOperation
	case -32005:
		sentinel = a2apb.ErrUnsupportedContentType
	case -32006:
		sentinel = a2apb.ErrInvalidAgentResponse
	case -32007:
		sentinel = a2apb.ErrAuthenticatedExtendedCardNotConfigured
	default:
		sentinel = a2apb.ErrInternalError
	}
	if detail, ok := e.Data["error"].(string); ok && detail != "" {
		return fmt.Errorf("%s: %w", quoteRemote(detail), sentinel)
	}
	if e.Message != "" && e.Message != sentinel.Error() {
		return fmt.Errorf("%s: %w", quoteRemote(e.Message), sentinel)
	}
	return sentinel
}

// post sends method with params under id; stream asks for an event
// stream.
func (c *rpcClient) post(ctx context.Context, method, id string, params any, stream bool) (*http.Response, error) {
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", Method: method, Params: params, ID: id})
	if err != nil {
		return nil, fmt.Errorf("a2a: encoding the %s request: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("a2a: %s request: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if stream {
		req.Header.Set("Accept", "text/event-stream")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("a2a: %s: %w", method, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("a2a: %s: unexpected HTTP status %s", method, quoteRemote(resp.Status))
	}
	return resp, nil
}

// result decodes the response to request id and returns its result as
// an event. An error object is an error whatever its id; a result counts
// only as a JSON-RPC 2.0 response to this request.
func result(method, id string, raw []byte) (a2apb.Event, error) {
	if err := jsondepth.Check(raw, maxReplyDepth); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrProtocol, method, err)
	}
	var r rpcResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: decoding the reply: %w", ErrProtocol, method, quotedError{err})
	}
	if r.Error != nil {
		return nil, r.Error.err()
	}
	if r.JSONRPC != "2.0" {
		return nil, fmt.Errorf("%w: %s: the reply's jsonrpc is %s, not \"2.0\"", ErrProtocol, method, quoteRemote(r.JSONRPC))
	}
	if got, ok := r.ID.(string); !ok || got != id {
		return nil, fmt.Errorf("%w: %s: the reply's id is %s, not the request's", ErrProtocol, method, quoteRemote(fmt.Sprint(r.ID)))
	}
	ev, err := a2apb.UnmarshalEventJSON(r.Result)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: the result is no A2A event: %w", ErrProtocol, method, quotedError{err})
	}
	return ev, nil
}

// call makes a request that is answered with one response.
func (c *rpcClient) call(ctx context.Context, method string, params any) (a2apb.Event, error) {
	id := uuid.NewString()
	resp, err := c.post(ctx, method, id, params, false)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("a2a: %s: reading the reply: %w", method, err)
	}
	return result(method, id, raw)
}

// send sends a message and returns the task or message it is answered
// with; any other event is a protocol error, as a2a-go's client had it.
func (c *rpcClient) send(ctx context.Context, params *a2apb.MessageSendParams) (a2apb.Event, error) {
	const method = "message/send"
	ev, err := c.call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	switch ev.(type) {
	case *a2apb.Task, *a2apb.Message:
		return ev, nil
	}
	return nil, fmt.Errorf("%w: %s: the result is a %T, not a task or a message", ErrProtocol, method, ev)
}

// cancel asks the remote to cancel task id; a result other than a task is
// a protocol error, as a2a-go's client had it.
func (c *rpcClient) cancel(ctx context.Context, id string) error {
	const method = "tasks/cancel"
	ev, err := c.call(ctx, method, &a2apb.TaskIDParams{ID: a2apb.TaskID(id)})
	if err != nil {
		return err
	}
	if _, ok := ev.(*a2apb.Task); !ok {
		return fmt.Errorf("%w: %s: the result is a %T, not a task", ErrProtocol, method, ev)
	}
	return nil
}

// stream sends a message and yields the events of the stream it is
// answered with, in order, until the stream ends or an error, which is
// yielded last. A JSON reply in place of the stream (a server refusing
// the request) is yielded as the error it holds; a result there, or a
// reply of any other type, is a protocol error.
func (c *rpcClient) stream(ctx context.Context, params *a2apb.MessageSendParams) iter.Seq2[a2apb.Event, error] {
	const method = "message/stream"
	return func(yield func(a2apb.Event, error) bool) {
		id := uuid.NewString()
		resp, err := c.post(ctx, method, id, params, true)
		if err != nil {
			yield(nil, err)
			return
		}
		defer resp.Body.Close()
		ct := resp.Header.Get("Content-Type")
		switch mt, _, _ := mime.ParseMediaType(ct); mt {
		case "text/event-stream":
		case "application/json":
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				yield(nil, fmt.Errorf("a2a: %s: reading the reply: %w", method, err))
				return
			}
			if _, err := result(method, id, raw); err != nil {
				yield(nil, err)
				return
			}
			yield(nil, fmt.Errorf("%w: %s: a JSON result in place of an event stream", ErrProtocol, method))
			return
		default:
			yield(nil, fmt.Errorf("%w: %s: a reply of type %s, not an event stream", ErrProtocol, method, quoteRemote(ct)))
			return
		}
		dec := sse.NewDecoder(resp.Body, c.maxEvent)
		for {
			ev, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, fmt.Errorf("a2a: %s: %w", method, err))
				return
			}
			if !yield(result(method, id, ev.Data)) {
				return
			}
		}
	}
}
