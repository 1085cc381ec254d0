package helikon

import (
	"context"
	"strings"
)

// checkInput runs the input guardrails over the user text of input. It
// reports false after emitting the failure when one trips.
func (d *driver) checkInput(ctx context.Context, input []Item, yield func(Event) bool) bool {
	var b strings.Builder
	for _, it := range input {
		if it.Role == RoleUser {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(it.Text())
		}
	}
	return d.runGuardrails(ctx, d.a.inputGuards, GuardrailInput{Kind: GuardUserText, Text: b.String()}, yield)
}

// checkOutput runs the output guardrails over the final text.
func (d *driver) checkOutput(ctx context.Context, text string, yield func(Event) bool) bool {
	return d.runGuardrails(ctx, d.a.outputGuards, GuardrailInput{Kind: GuardModelOutput, Text: text}, yield)
}

func (d *driver) runGuardrails(ctx context.Context, gs []Guardrail, in GuardrailInput, yield func(Event) bool) bool {
	for _, g := range gs {
		tw, err := g.Check(ctx, d.rc, in)
		if err != nil {
			tw = &Tripwire{Kind: GuardrailOther, Reason: err.Error()}
		}
		if tw == nil {
			continue
		}
		if yield(GuardrailTriggered{Kind: tw.Kind, Info: tw.Info}) {
			yield(RunFailed{Err: &AgentError{Kind: KindGuardrail, Agent: d.a.name, Message: guardrailMessage(tw), Err: err}})
		}
		return false
	}
	return true
}

func guardrailMessage(tw *Tripwire) string {
	if tw.Reason != "" {
		return string(tw.Kind) + ": " + tw.Reason
	}
	return string(tw.Kind)
}
