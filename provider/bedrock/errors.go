package bedrock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/smithy-go"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

const providerName = "bedrock"

// apiError is an error Bedrock reported: an error response (the AWS JSON
// protocol's error code and message) or an exception inside the event
// stream. It is a smithy.APIError, as the SDK's errors are, so a caller
// that reads the code with errors.As keeps working.
type apiError struct {
	status        int // 0 inside the event stream
	code, message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("api error %s: %s", e.code, e.message)
}

// ErrorCode returns the error's code, e.g. ThrottlingException.
func (e *apiError) ErrorCode() string { return e.code }

// ErrorMessage returns the message Bedrock sent.
func (e *apiError) ErrorMessage() string { return e.message }

// ErrorFault tells the caller's faults (4xx) from the service's.
func (e *apiError) ErrorFault() smithy.ErrorFault {
	if e.status >= 400 && e.status < 500 {
		return smithy.FaultClient
	}
	return smithy.FaultServer
}

var _ smithy.APIError = (*apiError)(nil)

// readAPIError reads an AWS JSON error response: the code from the
// X-Amzn-ErrorType header, else the body's code or __type member, without
// a namespace ("com.amazon.bedrock#ValidationException") or a trailing
// ":<url>"; the message from the body's message (or Message). A body that
// is not such an error is quoted as the message, so a proxy's page says
// what it was.
func readAPIError(status int, h http.Header, body []byte) *apiError {
	var v struct {
		Type    string `json:"__type"`
		Code    string `json:"code"`
		Message string `json:"message"` // encoding/json matches Message too
	}
	_ = json.Unmarshal(body, &v) // a body that is not JSON still has its status
	code := h.Get("X-Amzn-ErrorType")
	for _, c := range []string{v.Code, v.Type} {
		if code == "" {
			code = c
		}
	}
	code, _, _ = strings.Cut(code, ":")
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	msg := v.Message
	if msg == "" {
		msg = httpx.DescribeBody(body)
	}
	return &apiError{status: status, code: strings.TrimSpace(code), message: msg}
}

// classify turns an error of a call (a failed send, an error response, or
// an exception or a fault inside the event stream) into a ModelError.
func (m *Model) classify(ctx context.Context, err error) *helikon.ModelError {
	me := &helikon.ModelError{Kind: helikon.ModelTransport, Provider: providerName, Err: err}
	if cerr := ctx.Err(); cerr != nil {
		me.Err = cerr
		return me
	}
	var nes *notEventStreamError
	if errors.As(err, &nes) {
		me.Kind, me.StatusCode, me.Message = helikon.ModelOther, nes.status, nes.msg
		return me
	}
	var big *eventTooLargeError
	if errors.As(err, &big) {
		me.Kind, me.Message = helikon.ModelOther, big.Error()
		return me
	}
	var api *apiError
	if !errors.As(err, &api) {
		return me // a failed connection, a broken or truncated stream
	}
	me.StatusCode, me.Message = api.status, api.message
	msg := strings.ToLower(api.message)
	switch api.code {
	case "ThrottlingException", "ServiceQuotaExceededException":
		me.Kind = helikon.ModelRateLimited
	case "ServiceUnavailableException", "ModelNotReadyException", "InternalServerException",
		"ModelStreamErrorException", "ModelTimeoutException":
		me.Kind = helikon.ModelUnavailable
	case "ValidationException":
		me.Kind = helikon.ModelOther
		if strings.Contains(msg, "too long") || strings.Contains(msg, "context length") ||
			strings.Contains(msg, "context window") || strings.Contains(msg, "too many input tokens") ||
			strings.Contains(msg, "maximum number of tokens") {
			me.Kind = helikon.ModelContextLengthExceeded
		}
	case "AccessDeniedException", "ResourceNotFoundException", "UnrecognizedClientException",
		"InvalidSignatureException", "ExpiredTokenException":
		me.Kind = helikon.ModelOther
		me.Message += " (model " + m.id + " in region " + m.region + ")"
	default:
		// No code (a proxy's or load balancer's answer) or one this version
		// does not know: the status decides, so a 429 is still a rate limit
		// and a 5xx still the service's fault.
		me.Kind = httpx.StatusKind(api.status)
	}
	return me
}
