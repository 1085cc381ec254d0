package providertest_test

import (
	"fmt"
	"log"

	"github.com/paigasus/helikon/provider/providertest"
)

// Load reads a recording and its citation stays in the file as SSE
// comments, which decoders skip.
func ExampleLoad() {
	rec, err := providertest.Load("../anthropic/testdata/text.sse")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rec.Status, rec.Header.Get("Content-Type"))
	// Output: 200 text/event-stream
}
