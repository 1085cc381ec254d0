// Package jsondepth bounds how deeply a JSON document nests, before any
// decoder that recurses (or code that later walks the decoded value) sees
// it:
//
//	if err := jsondepth.Check(body, 64); err != nil {
//		return err // wraps jsondepth.ErrTooDeep
//	}
package jsondepth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrTooDeep reports JSON whose objects and arrays nest deeper than the
// limit.
var ErrTooDeep = errors.New("JSON nested too deeply")

// Check walks body's tokens with the standard decoder, which holds no
// stack of its own beyond a counter per level, and fails with an error
// wrapping [ErrTooDeep] once objects and arrays nest deeper than limit.
// Syntax errors are left to the caller's real decode: Check reports none.
func Check(body []byte, limit int) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
				if depth > limit {
					return fmt.Errorf("%w (more than %d levels)", ErrTooDeep, limit)
				}
			default:
				depth--
			}
		}
	}
}
