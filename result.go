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
	Events    []Event
	// Usage sums every turn of the run, its handoffs and its sub-agents,
	// failed runs included; Usage.Cost is set when the run had a price
	// table ([WithPrices]).
	Usage Usage
}

// Collect drains a run. A [RunFailed] becomes the returned error (the result
// still holds every event seen).
func Collect(stream iter.Seq[Event]) (*RunResult, error) {
	res := &RunResult{}
	var runErr error
	for ev := range stream {
		res.Events = append(res.Events, ev)
		switch e := ev.(type) {
		case MessageOutput:
			res.FinalOutput = e.Item.Text()
			res.LastAgent = e.Item.Agent
		case RunCompleted:
			res.Usage = e.Usage
		case RunFailed:
			runErr = e.Err
			res.Usage = e.Usage
		}
	}
	if runErr != nil {
		return res, runErr
	}
	return res, nil
}

// TypedResult is a drained run whose final output decoded into a T.
type TypedResult[T any] struct {
	*RunResult
	Output T
}

// CollectTyped drains a run of an agent built [WithOutput] and decodes the
// final output into a T. A structured-output failure surfaces as an
// [*AgentError] of kind InvalidStructuredOutput; a final output that does not
// decode as T (a plain-text run, say) as one of kind Other.
func CollectTyped[T any](stream iter.Seq[Event]) (*TypedResult[T], error) {
	res, err := Collect(stream)
	out := &TypedResult[T]{RunResult: res}
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal([]byte(res.FinalOutput), &out.Output); err != nil {
		return out, &AgentError{Kind: KindOther, Message: "final output does not decode as " + reflect.TypeFor[T]().String() + ": " + err.Error(), FinalText: res.FinalOutput, Err: err}
	}
	return out, nil
}
