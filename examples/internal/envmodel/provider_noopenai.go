//go:build noopenai

package envmodel

import "github.com/paigasus/helikon"

// openaiModel reports that this build left OpenAI out.
func openaiModel(string) (helikon.Model, error) {
	return nil, &OmittedError{Provider: "openai"}
}
