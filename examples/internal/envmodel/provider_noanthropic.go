//go:build noanthropic

package envmodel

import "github.com/paigasus/helikon"

// anthropicModel reports that this build left Anthropic out.
func anthropicModel(string) (helikon.Model, error) {
	return nil, &OmittedError{Provider: "anthropic"}
}
