package helikon

import (
	"cmp"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon/internal/slug"
)

// Handoff names an agent the conversation may be transferred to: a transfer
// tool the LLM agent offers, after which the target runs the rest of the
// conversation and its answer ends the run.
type Handoff struct {
	// Agent is the target.
	Agent       Agent
	ToolName    string // default: transfer_to_<slug of the agent name>
	Description string // default: the target's description
	// InputFilter, when set, rewrites the transcript the target sees (for
	// example [DropToolItems]). It must not modify its argument.
	InputFilter func([]Item) []Item
}

// HandoffTo returns a Handoff to agent with the default tool name and
// description.
func HandoffTo(agent Agent) Handoff { return Handoff{Agent: agent} }

// WithHandoffs appends handoffs to an LLM agent.
func WithHandoffs(h ...Handoff) AgentOption {
	return agentOptionFunc(func(a *LLMAgent) { a.handoffs = append(a.handoffs, h...) })
}

// TransferToolName returns the tool name of a handoff.
func (h Handoff) TransferToolName() string {
	if h.ToolName != "" {
		return h.ToolName
	}
	return "transfer_to_" + slug.Make(h.Agent.Name())
}

func (a *LLMAgent) indexHandoffs() error {
	if len(a.handoffs) == 0 {
		return nil
	}
	a.handoffNames = make(map[string]string, len(a.handoffs))
	a.handoffIndex = make(map[string]*Handoff, len(a.handoffs))
	owner := make(map[string]string, len(a.handoffs))
	for i := range a.handoffs {
		h := &a.handoffs[i]
		if h.Agent == nil {
			return buildErr(a.name, ErrInvalidOption, fmt.Sprintf("handoff %d has no agent", i))
		}
		tool := h.TransferToolName()
		if prev, dup := owner[tool]; dup {
			return buildErr(a.name, ErrDuplicateKey, fmt.Sprintf("handoffs to %q and %q collide on tool %q", prev, h.Agent.Name(), tool), tool)
		}
		if _, dup := a.toolIndex[tool]; dup {
			return buildErr(a.name, ErrDuplicateKey, fmt.Sprintf("handoff tool %q collides with a tool of that name", tool), tool)
		}
		if _, dup := a.handoffIndex[h.Agent.Name()]; dup {
			return buildErr(a.name, ErrDuplicateKey, fmt.Sprintf("two handoffs target agents named %q", h.Agent.Name()), h.Agent.Name())
		}
		owner[tool] = h.Agent.Name()
		a.handoffNames[tool] = h.Agent.Name()
		a.handoffIndex[h.Agent.Name()] = h
		desc := cmp.Or(h.Description, h.Agent.Description(), "Transfer the conversation to "+h.Agent.Name()+".")
		a.toolDefs = append(a.toolDefs, ToolDef{Name: tool, Description: desc, Parameters: emptyObjectSchema()})
	}
	return nil
}

func emptyObjectSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
}

// DropToolItems is a handoff input filter that removes tool calls and tool
// results from a transcript, keeping user, assistant text and system items.
func DropToolItems(items []Item) []Item {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if it.Role == RoleTool {
			continue
		}
		if it.Role == RoleAssistant {
			var kept []ContentPart
			for _, p := range it.Content {
				if _, ok := p.(ToolUsePart); !ok {
					kept = append(kept, p)
				}
			}
			if len(kept) == 0 {
				continue
			}
			it.Content = kept
		}
		out = append(out, it)
	}
	return out
}
