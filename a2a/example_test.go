package a2a_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

// A Helikon agent served over A2A, called by a Helikon agent over A2A.
func Example() {
	specialist, err := helikon.NewAgent("billing", mock.Scripted(mock.Text("Invoice 42 is paid.")),
		helikon.WithDescription("Answers questions about invoices."))
	if err != nil {
		log.Fatal(err)
	}
	srv, err := a2a.NewServer(specialist)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()

	remote, err := a2a.NewRemoteAgent(context.Background(), ts.URL)
	if err != nil {
		log.Fatal(err)
	}
	res, err := helikon.Collect(remote.Run(context.Background(), helikon.Ephemeral(), helikon.UserText("Is invoice 42 paid?")))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.FinalOutput)
	// Output: Invoice 42 is paid.
}

// The A2A server beside the agent server, on one mux, sharing its
// authenticator: a caller is the same principal on both, and owns its
// tasks and sessions on both.
func Example_besideTheAgentServer() {
	var agent helikon.Agent // the agent to serve
	var auth server.Authenticator
	agentServer, err := server.New([]helikon.Agent{agent}, server.WithAuth(auth))
	if err != nil {
		log.Fatal(err)
	}
	a2aServer, err := a2a.NewServer(agent,
		a2a.WithURL("https://agents.example.com/a2a/"),
		a2a.WithAuthenticator(func(r *http.Request) (string, error) {
			p, _, err := auth.Authenticate(r)
			return p.ID, err
		}))
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/a2a/", http.StripPrefix("/a2a", a2aServer))
	mux.Handle("/", agentServer.Handler())
	log.Fatal(http.ListenAndServe(":8080", mux))
}
