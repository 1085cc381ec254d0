package helikon

import (
	"context"
	"testing"
)

// TestStopper_AStepOnAContextOfItsOwnDoesNotStopTheRun pins that only a step
// under the run's own context (values added, such as a span, allowed) shares
// the run's cancel func; a step under a context that can be cancelled on its
// own gets a cancel func of its own, so that its consumer stopping it leaves
// the run going.
func TestStopper_AStepOnAContextOfItsOwnDoesNotStopTheRun(t *testing.T) {
	d := &driver{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, release := d.runContext(ctx)
	defer release()

	type key struct{}
	if _, _, owned := d.stopper(context.WithValue(run, key{}, 1)); owned {
		t.Errorf("a step under the run's context with a value added got a cancel func of its own; want the run's")
	}

	step, cancelStep := context.WithCancel(run)
	defer cancelStep()
	stepCtx, stop, owned := d.stopper(step)
	if !owned {
		t.Fatalf("a step under a context of its own got the run's cancel func")
	}
	stop()
	if stepCtx.Err() == nil {
		t.Errorf("the step's cancel func did not stop the step")
	}
	if run.Err() != nil {
		t.Errorf("stopping the step stopped the run: %v", run.Err())
	}
}
