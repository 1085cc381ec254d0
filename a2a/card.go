package a2a

import (
	a2apb "github.com/a2aproject/a2a-go/a2a"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slug"
)

// protocolVersion is the A2A protocol version the SDK we build on speaks.
const protocolVersion = "0.3.0"

// toolLister is what an agent that shows its tools offers
// ([helikon.LLMAgent] does).
type toolLister interface{ Tools() []helikon.Tool }

// cardFor describes agent as an A2A agent card: one skill for the agent as
// a whole, and one for each tool it can use, so a caller choosing among
// agents sees what this one can do.
func cardFor(agent helikon.Agent, cfg serverConfig) *a2apb.AgentCard {
	desc := agent.Description()
	if desc == "" {
		desc = "The " + agent.Name() + " agent."
	}
	skills := []a2apb.AgentSkill{{
		ID:          slug.Make(agent.Name()),
		Name:        agent.Name(),
		Description: desc,
		Tags:        []string{"agent"},
	}}
	if tl, ok := agent.(toolLister); ok {
		for _, t := range tl.Tools() {
			skills = append(skills, a2apb.AgentSkill{
				ID:          "tool:" + t.Name(),
				Name:        t.Name(),
				Description: t.Description(),
				Tags:        []string{"tool"},
			})
		}
	}
	return &a2apb.AgentCard{
		Name:               agent.Name(),
		Description:        desc,
		URL:                cfg.url,
		Version:            cfg.version,
		ProtocolVersion:    protocolVersion,
		PreferredTransport: a2apb.TransportProtocolJSONRPC,
		Capabilities:       a2apb.AgentCapabilities{Streaming: true},
		DefaultInputModes:  []string{"text/plain", "application/json"},
		DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills:             skills,
	}
}
