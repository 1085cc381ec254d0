// Package peers measures Helikon against other agent SDKs, so that each
// comparison is a ratio of figures taken in the same run: stream decoding
// against the official OpenAI SDK (openai-go), and the scenarios S1–S4
// against eino's adk package and the OpenAI Agents SDK for JS, each with a
// scripted in-process model (no network, no provider SDK):
//
//	S1 one tool round: a call to add, then the answer;
//	S2 ten rounds of four parallel calls to add, then the answer;
//	S3 one streamed answer of 1,000 deltas;
//	S4 a parallel agent over three agents that each answer at once.
//
// ADK for Go (google.golang.org/adk) is left out: the module proxy answers
// 403 for it ("This module version is not available"; checked 2026-12-02
// and again 2026-12-03 18:05 UTC with go list -m -versions).
//
// It is a module of its own so that the main module gains none of the
// peers' dependencies. Run it from this directory:
//
//	go test -run '^$' -bench . -benchmem -count 6 | tee new.txt
//
// Each benchmark runs both sides in every iteration, alternating which goes
// first (internal/benchpair), and reports x-<peer>: Helikon's time over the
// peer's, so 0.04 means Helikon is 25× faster.
//
// BenchmarkScenariosVsEino runs S1–S4 twice: on context.Background(), and
// as S1_cancellable–S4_cancellable with both SDKs on a context that can be
// cancelled, as every server request's is. On such a context Helikon runs
// a tool call on a worker goroutine, so that one ignoring cancellation
// cannot hold the run past its grace period; those rows show what that
// guarantee costs the lead.
//
// # The OpenAI Agents SDK for JS
//
// js/ holds @openai/agents-core at the version pinned in its committed
// package-lock.json (install it with npm ci there) and js/scenarios.mjs,
// which runs S1–S4 on it: the tool is the SDK's tool() with a zod schema
// of the same two integers, the scripted model implements the SDK's Model
// interface (getResponse, and getStreamedResponse for S3's 1,000 deltas
// through run(..., {stream: true})) and answers with the SDK's own
// normalized items and stream events, and S4 runs three agents under
// Promise.all, as the SDK's orchestration guide says to run agents in
// parallel, then gathers their answers into one object as Helikon's
// Parallel agent does. The
// runner's tracing is disabled: agents-core alone exports no traces.
//
// BenchmarkScenariosVsAgentsJS keeps one node process for the test binary,
// so V8 stays warm across -count rounds; each scenario is first warmed up
// there (up to 2,000 runs or 3 s). It then runs in rounds: a block of
// Helikon's runs and a block of the SDK's, each about 20 ms, alternating
// which goes first. Node times its own block, so no pipe time is counted.
// It reports ns-helikon/op, ns-agentsjs/op and x-agentsjs, the median
// over the rounds of Helikon's time a run over the SDK's; it skips, saying
// how to install them, when node or the SDK is missing. js/run.sh runs
// both peers' benchmarks and prints, per scenario, the median of each
// ratio over the -count rounds and the lead over the fastest peer:
//
//	bench/peers/js/run.sh   # from the repository root; COUNT=6 BENCHTIME=1s
package peers
