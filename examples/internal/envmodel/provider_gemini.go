//go:build !nogemini

package envmodel

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
)

// geminiModel returns the Gemini model named id, or the examples' default
// model when id is empty.
func geminiModel(id string) (helikon.Model, error) {
	return asModel(gemini.New(cmp.Or(id, "gemini-2.5-flash")))
}
