//go:build nogemini

package envmodel

import "github.com/paigasus/helikon"

// geminiModel reports that this build left Gemini out.
func geminiModel(string) (helikon.Model, error) {
	return nil, &OmittedError{Provider: "gemini"}
}
