package bedrock_test

import (
	"fmt"

	"github.com/paigasus/helikon/provider/bedrock"
)

// ExampleDetectFamily shows how structured output is chosen from the id.
func ExampleDetectFamily() {
	for _, id := range []string{"global.anthropic.claude-sonnet-4-5-20250929-v1:0", "eu.amazon.nova-pro-v1:0", "meta.llama3-3-70b-instruct-v1:0"} {
		fmt.Println(bedrock.DetectFamily(id))
	}
	// Output:
	// anthropic
	// nova
	// llama
}
