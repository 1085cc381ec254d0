package bedrock_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// Example streams one structured answer from Claude on Bedrock, which gets
// native JSON-schema output. A local server replays a recorded
// ConverseStream (its binary event stream) so the example runs without AWS
// credentials; a program passes bedrock.New the aws.Config that
// config.LoadDefaultConfig(ctx) returns instead.
func Example() {
	data, err := os.ReadFile("testdata/native_structured_output.eventstream.b64")
	if err != nil {
		log.Fatal(err)
	}
	var b64 strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "#") {
			b64.WriteString(line)
		}
	}
	recording, err := base64.StdEncoding.DecodeString(b64.String())
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		_, _ = w.Write(recording)
	}))
	defer srv.Close()

	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}
	model, err := bedrock.New(cfg, "us.anthropic.claude-sonnet-4-6", bedrock.WithBaseEndpoint(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	city := &jsonschema.Schema{Type: "object", Required: []string{"city", "country"},
		Properties: map[string]*jsonschema.Schema{"city": {Type: "string"}, "country": {Type: "string"}}}
	req := &helikon.ModelRequest{Messages: helikon.UserText("Where were the 2024 Olympics held?"),
		Settings: helikon.ModelSettings{ResponseFormat: &helikon.ResponseFormat{Type: helikon.FormatJSONSchema, Name: "CityLocation", Schema: city}}}
	for ev, err := range model.Invoke(context.Background(), req) {
		if err != nil {
			log.Fatal(err)
		}
		switch ev := ev.(type) {
		case helikon.TokenDelta:
			fmt.Print(ev.Text)
		case helikon.Finish:
			fmt.Println("\nfinish:", ev.Reason)
		}
	}
	// Output:
	// {"city":"Paris","country":"France"}
	// finish: stop
}

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

// ExampleWithCacheStrategy caches the system prompt, the tools and the
// conversation so far on every turn of a Claude agent: the next turn reads
// them from Bedrock's prompt cache (reported as Usage.CachedInputTokens).
func ExampleWithCacheStrategy() {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")}
	model, err := bedrock.New(cfg, "us.anthropic.claude-sonnet-4-5-20250929-v1:0", bedrock.WithCacheStrategy(bedrock.CacheAll))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Capabilities().PromptCaching)
	// Output: true
}
