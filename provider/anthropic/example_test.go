package anthropic_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/providertest"
)

// Messages with prompt caching, against a local server replaying a recorded
// stream whose usage reports cache reads and writes.
func ExampleMessages() {
	rec, err := providertest.Load("testdata/usage_cache.sse")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(rec.Body)
	}))
	defer srv.Close()

	model, err := anthropic.Messages("claude-sonnet-4-6",
		anthropic.WithAPIKey("sk-ant-example"), anthropic.WithBaseURL(srv.URL),
		anthropic.WithCacheStrategy(anthropic.CacheAll))
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range model.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("Sum of squares 1..12?")}) {
		if err != nil {
			log.Fatal(err)
		}
		switch e := ev.(type) {
		case helikon.TokenDelta:
			fmt.Print(e.Text)
		case helikon.Usage:
			fmt.Printf("\ncache read %d, cache write %d\n", e.CachedInputTokens, e.CacheWriteTokens)
		}
	}
	// Output:
	// The sum of the squares of the numbers 1 through 12 is **650**.
	// cache read 6289, cache write 3337
}
