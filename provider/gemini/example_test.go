package gemini_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
)

// Example streams one answer. A local server replays a recorded Gemini
// stream so the example runs without a key; a program drops WithBaseURL
// and WithAPIKey and sets GEMINI_API_KEY.
func Example() {
	recording, err := os.ReadFile("testdata/text.sse")
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(recording)
	}))
	defer srv.Close()

	model, err := gemini.New("gemini-3-pro-preview", gemini.WithBaseURL(srv.URL), gemini.WithAPIKey("key"))
	if err != nil {
		log.Fatal(err)
	}
	req := &helikon.ModelRequest{Messages: helikon.UserText("How many r's are in strawberry?")}
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
	// There are **3** "r"s in strawberry.
	//
	// st**r**awbe**rr**y
	// finish: stop
}

// ExampleVertex builds a model on Vertex AI with a fixed access token; a
// program would rather pass WithTokenSource or call VertexFromEnv.
func ExampleVertex() {
	model, err := gemini.Vertex("gemini-2.5-flash", "my-project", gemini.WithBearerToken("ya29.token"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Provider(), model.ModelID())
	// Output: gemini gemini-2.5-flash
}
