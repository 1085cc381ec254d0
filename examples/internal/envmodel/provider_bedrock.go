//go:build !nobedrock

package envmodel

import (
	"cmp"
	"context"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// bedrockModel returns the Bedrock model named id, or the examples' default
// model when id is empty.
func bedrockModel(id string) (helikon.Model, error) {
	return asModel(bedrock.FromEnv(context.Background(), cmp.Or(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")))
}
