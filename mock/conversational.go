package mock

import (
	"context"
	"fmt"
	"iter"

	"github.com/paigasus/helikon"
)

// Conversational is a scripted [helikon.Model] that keeps no state between
// calls: each Invoke plays the script whose index is the number of
// assistant messages its agent has written since the request's last user
// message. The first call of a question gets the first script, the call
// after its tool results the second, whatever ran before.
//
// A counting [Model] serves one run; a Conversational serves any number of
// runs, concurrent ones too, and a run resumed after a pause for approval
// carries on from the script after the paused call even when its agent was
// built anew, as a server's or a command's is.
type Conversational struct {
	agent   string
	scripts []Script
	cfg     *Model
}

// Conversational returns a [Conversational] model playing the case's
// scripts (the default ones when the file has none for caseID) for the
// agent named agent, which must be the name the agent runs under: it is
// how the model tells its own past turns from those of agents that handed
// off to it.
func (f *ScriptFile) Conversational(caseID, agent string, opts ...Option) *Conversational {
	return &Conversational{agent: agent, scripts: f.scripts(caseID), cfg: New(nil, f.options(opts)...)}
}

// Capabilities reports the model's flags.
func (c *Conversational) Capabilities() helikon.ModelCapabilities { return c.cfg.caps }

// Provider returns "mock".
func (c *Conversational) Provider() string { return "mock" }

// ModelID returns the configured id (default "mock").
func (c *Conversational) ModelID() string { return c.cfg.id }

// Invoke streams the script for the agent's turn of the current question.
func (c *Conversational) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return func(yield func(helikon.ModelEvent, error) bool) {
		n := c.turn(req.Messages)
		if n >= len(c.scripts) {
			yield(nil, &helikon.ModelError{Kind: helikon.ModelOther, Provider: "mock",
				Message: fmt.Sprintf("script exhausted: %s's call %d of the question has no script (the file has %d)", c.agent, n+1, len(c.scripts))})
			return
		}
		c.cfg.play(ctx, c.scripts[n], yield)
	}
}

// turn counts the agent's assistant messages after the last user message.
func (c *Conversational) turn(msgs []helikon.Item) int {
	n := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != helikon.RoleUser; i-- {
		if msgs[i].Role == helikon.RoleAssistant && msgs[i].Agent == c.agent {
			n++
		}
	}
	return n
}
