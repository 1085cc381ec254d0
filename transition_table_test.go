package helikon_test

import (
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/transitiontest"
)

// TestTransition_Table checks Transition against the transition table,
// which the durable runner's driver is held to as well.
func TestTransition_Table(t *testing.T) {
	for _, c := range transitiontest.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			out := helikon.Transition(c.State, c.In, transitiontest.Ctx(t, c.Tools, c.Output))
			c.Check(t, out.Next, out.Action.Kind, out.Events)
		})
	}
}
