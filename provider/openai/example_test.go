package openai_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
	"github.com/paigasus/helikon/provider/providertest"
)

// Chat against an OpenAI-compatible server; here a local test server that
// replays a recorded Chat Completions stream.
func ExampleChat() {
	rec, err := providertest.Load("testdata/chat/structured_output.sse")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(rec.Body)
	}))
	defer srv.Close()

	model, err := openai.Chat("gpt-4o", openai.WithBaseURL(srv.URL), openai.WithAPIKey(""))
	if err != nil {
		log.Fatal(err)
	}
	for ev, err := range model.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("Weather in SF?")}) {
		if err != nil {
			log.Fatal(err)
		}
		switch e := ev.(type) {
		case helikon.TokenDelta:
			fmt.Print(e.Text)
		case helikon.Finish:
			fmt.Println("\nfinish:", e.Reason)
		}
	}
	// Output:
	// {"city":"San Francisco","temperature":61,"units":"f"}
	// finish: stop
}

// The key comes from OPENAI_API_KEY unless WithAPIKey gives one; a missing
// key is reported before any request is made.
func ExampleResponses() {
	os.Unsetenv("OPENAI_API_KEY")
	os.Unsetenv("OPENAI_BASE_URL")
	_, err := openai.Responses("gpt-5-mini")
	fmt.Println(err)
	// Output: openai: no API key: set OPENAI_API_KEY or pass openai.WithAPIKey
}
