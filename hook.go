package helikon

import "context"

// fireHooks runs agent-level hooks, then run-level ones, and folds their
// decisions: the first Deny short-circuits, ReplaceInput and ReplaceOutput
// are last-writer-wins, InjectSystemMessage accumulates in fire order. The
// event escapes to the hooks: a hot path checks hooked first, so that a run
// without hooks builds none.
func fireHooks(ctx context.Context, rc *RunContext, agentHooks []Hook, ev *HookEvent) hookFold {
	var f hookFold
	if !hooked(rc, agentHooks) {
		return f
	}
	for _, list := range [2][]Hook{agentHooks, rc.hooks.All()} {
		for _, h := range list {
			d := h.OnEvent(ctx, rc, ev)
			switch d.Action {
			case HookDeny:
				f.denied = true
				f.reason = d.Reason
				if f.reason == "" {
					f.reason = "denied by hook"
				}
				return f
			case HookReplaceInput:
				f.input = d.Value
			case HookReplaceOutput:
				f.output = d.Value
			case HookInjectSystemMessage:
				f.inject = append(f.inject, d.Message)
			}
		}
	}
	return f
}

type hookFold struct {
	denied bool
	reason string
	input  []byte
	output []byte
	inject []string
}

func hooked(rc *RunContext, agentHooks []Hook) bool {
	return len(agentHooks) > 0 || rc.hooks.Len() > 0
}
