//go:build !noopenai

package envmodel

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
)

// openaiModel returns the OpenAI model named id, or the examples' default
// model when id is empty.
func openaiModel(id string) (helikon.Model, error) {
	return asModel(openai.Chat(cmp.Or(id, "gpt-5-mini")))
}
