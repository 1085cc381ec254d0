// Package durable drives an LLM agent's run for a durable runtime: a
// [Driver] follows the core's pure [helikon.Transition] exactly as the
// in-process loop does, but hands each side effect back as a [Step] (call
// the model with this request, run these tool calls, hand off, wait for
// approvals, finish) instead of running it. The host runs the step where
// it likes (a Temporal activity in package temporal, a queue consumer, a
// test), feeds the outcome back, and checkpoints between steps with
// [Driver.Checkpoint]; a new Driver resumes from one with
// [Driver.Resume].
//
// The package imports no engine, so a runtime other than Temporal links
// nothing of it. The smallest use, one model turn:
//
//	d := durable.NewDriver(helikon.TransitionCtx{Agent: "a", MaxTurns: 4}, 0)
//	st := d.Start(helikon.UserText("hi"), nil)
//	for st.Kind != durable.StepFinish {
//		// run st on the host, then feed its outcome back, e.g.
//		st = d.Feed(callTheModel(st.Request))
//	}
package durable
