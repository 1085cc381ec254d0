//go:build !nobedrock

package envmodel

import (
	"cmp"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// bedrockModel returns the Bedrock model named id, or the examples' default
// model when id is empty, on the standard AWS configuration.
func bedrockModel(id string) (helikon.Model, error) {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		return nil, fmt.Errorf("bedrock: load AWS config: %w", err)
	}
	return asModel(bedrock.New(cfg, cmp.Or(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")))
}
