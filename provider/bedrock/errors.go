package bedrock

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/paigasus/helikon"
)

const providerName = "bedrock"

// classify turns an error of the SDK (a failed call, or an exception that
// arrived inside the event stream) into a ModelError.
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
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		me.StatusCode = re.HTTPStatusCode()
	}
	var api smithy.APIError
	if !errors.As(err, &api) {
		return me // a failed connection, a broken or truncated stream
	}
	me.Message = api.ErrorMessage()
	msg := strings.ToLower(api.ErrorMessage())
	switch api.ErrorCode() {
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
	case "AccessDeniedException", "ResourceNotFoundException":
		me.Kind = helikon.ModelOther
		me.Message += " (model " + m.id + " in region " + m.region() + ")"
	default:
		me.Kind = helikon.ModelOther
		if me.StatusCode >= 500 {
			me.Kind = helikon.ModelUnavailable
		}
	}
	return me
}
