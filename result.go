package helikon

import (
	"encoding/json"
	"iter"
	"reflect"
)

// RunResult is a drained run.
type RunResult struct {
	// FinalOutput is the text of the last assistant message.
	FinalOutput string
	// LastAgent names the agent that produced it.
	LastAgent string
	// Structured reports that FinalOutput is the answering agent's validated
	// structured output (see [RunCompleted]).
	Structured bool
	Events     []Event
	// Paused is the state of a run that paused for approval; see [Resume].
	Paused *RunState
	// Usage sums every turn of the run, its handoffs and its sub-agents,
	// failed runs included; Usage.Cost is set when the run had a price
	// table ([WithPrices]).
	Usage Usage
}

// Collect drains a run into what [Collector.Result] returns.
func Collect(stream iter.Seq[Event]) (*RunResult, error) {
	var c Collector
	for range c.Observe(stream) {
	}
	return c.Result()
}

// Collector builds a [RunResult] from a run's events while the caller
// streams them, so one pass can print tokens and still end with a result:
//
//	var c helikon.Collector
//	for ev := range c.Observe(r.RunStreamed(ctx, agent, rc, input)) {
//		if d, ok := ev.(helikon.TokenDelta); ok {
//			fmt.Print(d.Text)
//		}
//	}
//	plan, err := helikon.OutputAs[Plan](c.Result())
//
// The zero Collector is ready to use; it observes one run.
type Collector struct {
	res RunResult
	err error
}

// Observe returns stream with every event recorded on the way through.
// Breaking out of the range stops the run as it would without Observe.
func (c *Collector) Observe(stream iter.Seq[Event]) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for ev := range stream {
			c.add(ev)
			if !yield(ev) {
				return
			}
		}
	}
}

func (c *Collector) add(ev Event) {
	res := &c.res
	if res.Events == nil {
		// The run's first event: a RunStarted may say how many to expect.
		if s, ok := ev.(RunStarted); ok && s.Events > 0 {
			res.Events = make([]Event, 0, min(s.Events, maxEventsHint))
		}
	}
	res.Events = append(res.Events, ev)
	switch e := ev.(type) {
	case MessageOutput:
		res.FinalOutput = e.Item.Text()
		res.LastAgent = e.Item.Agent
	case RunCompleted:
		res.Usage, res.Structured = e.Usage, e.Structured
	case RunFailed:
		c.err = e.Err
		res.Usage = e.Usage
	case RunPaused:
		res.Paused, res.Usage = e.State, e.Usage
		c.err = &PausedError{State: e.State}
	}
}

// maxEventsHint bounds the room a [Collector] reserves on a RunStarted's
// Events: beyond it the events grow the slice as they come.
const maxEventsHint = 1024

// Result returns what the observed events add up to, every event seen
// included. A [RunFailed] becomes the returned error; a [RunPaused] a
// [*PausedError] (matching [ErrPaused]), the state also in Paused.
func (c *Collector) Result() (*RunResult, error) {
	res := c.res
	return &res, c.err
}

// TypedResult is a drained run whose final output decoded into a T.
type TypedResult[T any] struct {
	*RunResult
	Output T
}

// CollectTyped drains a run of an agent built [WithOutput] and decodes the
// final output into a T, as [OutputAs] does.
func CollectTyped[T any](stream iter.Seq[Event]) (*TypedResult[T], error) {
	return OutputAs[T](Collect(stream))
}

// OutputAs decodes a drained run's final output into a T. It chains onto
// [Collect], [Collector.Result] or a runner's Run: a non-nil err is returned
// as is. A structured-output failure is an [*AgentError] of kind
// InvalidStructuredOutput; an output that does not decode as T (a
// plain-text run, say), one of kind Other saying so.
func OutputAs[T any](res *RunResult, err error) (*TypedResult[T], error) {
	out := &TypedResult[T]{RunResult: res}
	if err != nil || res == nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(res.FinalOutput), &out.Output); err != nil {
		want := reflect.TypeFor[T]().String()
		msg := "final output does not decode as " + want
		if !res.Structured {
			msg = "agent has no output type, so its final output is plain text, not a " + want + "; build it with WithOutput[" + want + "]()"
		}
		return out, &AgentError{Kind: KindOther, Agent: res.LastAgent, FinalText: res.FinalOutput, Err: err, Message: msg}
	}
	return out, nil
}
