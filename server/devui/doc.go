// Package devui is the agent server's developer web UI: pick an agent,
// chat with it on a session with streamed tokens, and watch each run's
// events live beside the chat — model calls, tool calls with their
// arguments and results, handoffs, guardrail trips, permission denials,
// structured-output repairs, failures — open past runs from the event
// log, and approve or reject paused calls in place.
//
// The UI is one page of plain JavaScript and CSS embedded in the binary:
// no CDN, no build step, no network at run time, about 13 KB gzipped. It
// calls only the server's public HTTP routes, so it runs against any
// server, and every model or tool text reaches the page as text, never as
// HTML, under a strict Content-Security-Policy.
//
// The smallest use is the server's option, which serves the UI at /ui/
// and redirects / there:
//
//	srv, err := server.New(agents, server.WithDevUI())
//	if err != nil {
//		log.Fatal(err)
//	}
//	log.Fatal(srv.Serve(ctx, "127.0.0.1:8080")) // open http://127.0.0.1:8080/
//
// `helikon serve` does this for every sidecar agent. To mount the UI
// elsewhere, build it with [New] and tell it where the server's routes
// are ([WithAPI]).
package devui
