//go:build nobedrock

package envmodel

import "github.com/paigasus/helikon"

// bedrockModel reports that this build left Bedrock out.
func bedrockModel(string) (helikon.Model, error) {
	return nil, &OmittedError{Provider: "bedrock"}
}
