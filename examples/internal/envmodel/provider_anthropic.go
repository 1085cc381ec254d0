//go:build !noanthropic

package envmodel

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
)

// anthropicModel returns the Anthropic model named id, or the examples' default
// model when id is empty.
func anthropicModel(id string) (helikon.Model, error) {
	return asModel(anthropic.Messages(cmp.Or(id, "claude-sonnet-4-6")))
}
