// Package mock provides a scripted [helikon.Model] for tests, evals,
// examples and the CLI: each invocation streams the next [Script], exactly
// as a provider would, with no network and no API key.
//
//	model := mock.Scripted(
//		mock.ToolCalls(mock.Call{ID: "c1", Name: "add", Args: `{"a":40,"b":2}`}),
//		mock.Text("sum is 42"),
//	)
//	agent, _ := helikon.NewAgent("calc", model, helikon.WithTools(add))
//
// Scripts can also be loaded from a JSON [ScriptFile] with a "default" set
// and per-case sets.
package mock
