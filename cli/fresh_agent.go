package cli

import (
	"context"
	"iter"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
)

// freshAgent builds a new agent from the definitions current() returns for
// every run, so a run never shares a built agent (or its tools) with
// another; mcp serve serves one.
type freshAgent struct {
	name, desc string
	build      func() (helikon.Agent, error)
}

func (a *freshAgent) Name() string        { return a.name }
func (a *freshAgent) Description() string { return a.desc }

func (a *freshAgent) Run(ctx context.Context, rc *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		ag, err := a.build()
		if err != nil {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: err})
			return
		}
		for ev := range ag.Run(ctx, rc, input) {
			if !yield(ev) {
				return
			}
		}
	}
}

// fresh returns the sidecar agent name as an agent rebuilt on every run
// from the definitions current() returns.
func fresh(current func() *sidecar.File, name string) *freshAgent {
	f := current()
	return &freshAgent{name: name, desc: f.Agents[name].Description, build: func() (helikon.Agent, error) {
		return newBuilder(current(), "").agent(name)
	}}
}
