// Package sidecar loads and validates agents.toml, the file the helikon
// command reads its agents, script tools and eval configuration from.
//
// The format is the seed's: [agents.NAME] tables (description,
// instructions inline or { file = "…" }, model, tools, handoffs, settings),
// [tools.NAME] tables (description, params as JSON Schema, script = "x.star"
// or an inline script, exactly one) and an optional [eval] table. Load checks
// everything it can without the network and reports every problem with the
// file and line it comes from: unknown keys (a typo is an error, never
// ignored), dangling tool or handoff names, handoff cycles, missing files and
// script tools without run(args).
//
//	f, err := sidecar.Load("agents.toml")
//	if err != nil {
//		fmt.Fprintln(os.Stderr, err) // agents.toml:7: agents.triage.handoffs: …
//		os.Exit(1)
//	}
//	for _, name := range f.AgentNames() { … }
package sidecar
