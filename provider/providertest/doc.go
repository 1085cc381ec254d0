// Package providertest is the conformance suite every model-provider
// adapter runs: an [httptest.Server] replays authentic recordings of the
// provider's wire format, and [Run] checks the adapter turns them into the
// right [helikon.ModelEvent] stream — streamed text, a tool-call round trip,
// parallel calls, structured output, usage, refusals, every error kind,
// particular servers' ways of streaming ([Suite.Behaviours]), 2xx responses
// that are not event streams ([Suite.NotEventStream], plus a gateway page
// and an empty body the suite brings), an oversized event
// ([Suite.NewLimited]), invalid tool arguments in the history
// ([Suite.CallArguments]), truncated streams, connection failures and
// cancellation.
//
// An adapter's test wires it up:
//
//	func TestConformance(t *testing.T) {
//		providertest.Run(t, providertest.Suite{
//			Path: "/chat/completions",
//			New: func(t testing.TB, baseURL string) helikon.Model {
//				m, err := openai.Chat("gpt-4o", openai.WithBaseURL(baseURL), openai.WithAPIKey("test"))
//				if err != nil {
//					t.Fatal(err)
//				}
//				return m
//			},
//			Text: providertest.Case{Fixture: "testdata/chat/text.sse", Want: providertest.Want{Text: "…", Finish: helikon.FinishStop}},
//			// …
//		})
//	}
//
// Recordings are either a raw text/event-stream body (".sse", replayed with
// status 200) or a whole HTTP response (".http": status line, headers,
// blank line, body). Lines starting with "#" at the top of an ".http" file,
// and SSE comment lines (":") in an ".sse" file, cite where the recording
// came from.
package providertest
