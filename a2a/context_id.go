package a2a

import (
	"fmt"
	"unicode"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// MaxContextIDBytes bounds the contextId of a message the [Server]
// accepts. The id names the principal's session in the session backend
// (a key in Redis, a row in SQL), so the request bound alone would let one
// message make a key of megabytes.
const MaxContextIDBytes = 256

// checkContextID refuses a message whose contextId is longer than
// [MaxContextIDBytes] or holds control characters, with
// [a2apb.ErrInvalidParams]. (JSON decoding has already made it UTF-8.)
func checkContextID(params *a2apb.MessageSendParams) error {
	if params == nil || params.Message == nil {
		return nil
	}
	id := params.Message.ContextID
	if len(id) > MaxContextIDBytes {
		return fmt.Errorf("%w: contextId is %d bytes, more than %d", a2apb.ErrInvalidParams, len(id), MaxContextIDBytes)
	}
	for _, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("%w: contextId holds a control character", a2apb.ErrInvalidParams)
		}
	}
	return nil
}
