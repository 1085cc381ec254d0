package sessioncache_test

import (
	"context"
	"fmt"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/runner"
	"github.com/paigasus/helikon/session/sessioncache"
)

// A process keeps its sessions' projections: the second run on the session
// reads only what the first one appended.
func Example() {
	ctx := context.Background()
	cache, err := sessioncache.New()
	if err != nil {
		panic(err)
	}
	store := helikon.NewMemorySession() // a sqlite, postgres or redis session in practice
	agent, err := helikon.NewAgent("echo", mock.Scripted(mock.Text("one"), mock.Text("two")))
	if err != nil {
		panic(err)
	}
	r := runner.New()
	for _, q := range []string{"first?", "second?"} {
		rc := helikon.NewRunContext(helikon.WithSession(cache.Wrap("memory:demo", store)))
		res, err := r.Run(ctx, agent, rc, helikon.UserText(q))
		if err != nil {
			panic(err)
		}
		fmt.Println(res.FinalOutput)
	}
	st := cache.Stats()
	fmt.Printf("full loads %d, incremental loads %d\n", st.Misses, st.Hits)
	// Output:
	// one
	// two
	// full loads 1, incremental loads 1
}
