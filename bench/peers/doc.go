// Package peers measures Helikon against other Go SDKs in one process, so
// that each comparison is a ratio of figures taken in the same run: stream
// decoding against the official OpenAI SDK (openai-go), and the scenarios
// S1–S4 against eino's adk package with a scripted in-process model. ADK for
// Go (google.golang.org/adk) is left out: the module proxy answers 403 for
// it (checked 2026-12-02).
//
// It is a module of its own so that the main module gains none of the
// peers' dependencies. Run it from this directory:
//
//	go test -run '^$' -bench . -benchmem -count 6 | tee new.txt
//
// Each benchmark runs both sides in every iteration, alternating which goes
// first (internal/benchpair), and reports x-<peer>: Helikon's time over the
// peer's, so 0.04 means Helikon is 25× faster.
package peers
