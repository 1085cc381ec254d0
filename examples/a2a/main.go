// Command a2a hands a conversation off to an agent in another process,
// over the Agent2Agent protocol: a billing specialist serves itself with
// [a2a.Server], and a triage agent here reaches it as an [a2a.RemoteAgent]
// handoff target. It runs on the scripted mock model, so it needs no API
// key.
//
//	go run ./examples/a2a               # both sides: starts the specialist as a child process
//	go run ./examples/a2a -serve :8081  # the specialist alone, for any A2A client
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/mock"
)

func main() {
	serve := flag.String("serve", "", "serve the billing specialist on this address and print its URL")
	flag.Parse()
	var err error
	if *serve != "" {
		err = serveSpecialist(context.Background(), *serve, os.Stdout, os.Stdin)
	} else {
		err = run(context.Background(), os.Stdout, os.Args[0])
	}
	if err != nil {
		log.Fatal(err)
	}
}

// specialist is the remote side's agent. Each run gets a fresh one: its
// scripted model plays one answer.
func specialist(context.Context) (helikon.Agent, error) {
	return helikon.NewAgent("billing specialist",
		mock.Scripted(mock.Deltas("Invoice 42 was paid on 3 May ", "by bank transfer.")),
		helikon.WithDescription("Answers questions about invoices and payments."),
		helikon.WithInstructions("You are a billing specialist."))
}

// serveSpecialist serves the specialist over A2A on addr, prints its base
// URL, and stops when stdin closes.
func serveSpecialist(ctx context.Context, addr string, out io.Writer, stdin io.Reader) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	agent, err := specialist(ctx)
	if err != nil {
		return err
	}
	srv, err := a2a.NewServer(agent, a2a.WithURL(url), a2a.WithAgentFactory(specialist))
	if err != nil {
		return err
	}
	defer srv.Close()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintln(out, url)
	io.Copy(io.Discard, stdin) // until the parent closes it
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// run starts the specialist as a child process (self, with -serve), then
// lets the triage agent hand the user's question off to it.
func run(ctx context.Context, w io.Writer, self string) error {
	child := exec.CommandContext(ctx, self, "-serve", "127.0.0.1:0")
	stdin, err := child.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		return err
	}
	defer func() {
		stdin.Close()
		child.Wait()
	}()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("the specialist did not start: %w", err)
	}

	billing, err := a2a.NewRemoteAgent(ctx, strings.TrimSpace(url), a2a.WithName("billing"))
	if err != nil {
		return err
	}
	triage, err := helikon.NewAgent("triage",
		mock.Scripted(mock.ToolCalls(mock.Call{ID: "call_1", Name: "transfer_to_billing", Args: `{}`})),
		helikon.WithInstructions("Transfer billing questions to the billing specialist."),
		helikon.WithHandoffs(helikon.HandoffTo(billing)))
	if err != nil {
		return err
	}

	question := "Was invoice 42 paid?"
	fmt.Fprintf(w, "user: %s\n", question)
	for ev := range triage.Run(ctx, helikon.Ephemeral(), helikon.UserText(question)) {
		switch e := ev.(type) {
		case helikon.HandoffItem:
			fmt.Fprintf(w, "[handoff %s → %s, over A2A]\n", e.From, e.To)
		case helikon.AgentUpdated:
			fmt.Fprintf(w, "%s: ", e.Agent)
		case helikon.TokenDelta:
			fmt.Fprint(w, e.Text)
		case helikon.RunCompleted:
			fmt.Fprintln(w)
		case helikon.RunFailed:
			return e.Err
		}
	}
	return nil
}
