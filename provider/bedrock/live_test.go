package bedrock_test

import (
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// TestLive_TextAndToolCall runs against the real Bedrock Runtime only when
// AWS credentials (AWS_ACCESS_KEY_ID or AWS_PROFILE), a region (AWS_REGION)
// and a model id (HELIKON_BEDROCK_MODEL, one the account may invoke in that
// region) are all set; CI has none of them, so there it skips.
func TestLive_TextAndToolCall(t *testing.T) {
	id := os.Getenv("HELIKON_BEDROCK_MODEL")
	if (os.Getenv("AWS_ACCESS_KEY_ID") == "" && os.Getenv("AWS_PROFILE") == "") || os.Getenv("AWS_REGION") == "" || id == "" {
		t.Skip("live test: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), AWS_REGION and HELIKON_BEDROCK_MODEL to run against the real Bedrock API")
	}
	cfg, err := config.LoadDefaultConfig(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	m, err := bedrock.New(cfg, id)
	if err != nil {
		t.Fatal(err)
	}
	providertest.Live(t, m)
}
