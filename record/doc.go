// Package record records any run once — each model invocation's request
// and stream, each tool call's output — and replays it through the mock
// model with no key and no network, saying exactly what drifted when a
// prompt, a tool's schema, the history or a setting changed since.
//
//	rec := record.New()
//	agent, _ := helikon.NewAgent("weather", rec.Model(live), helikon.WithTools(rec.Tool(getWeather)))
//	// … run the agent …
//	_ = rec.WriteFile("testdata/weather.json")
//
//	f, _ := mock.LoadScriptFile("testdata/weather.json")
//	rp, _ := record.NewReplay(f)
//	agent, _ = helikon.NewAgent("weather", rp.Model(), helikon.WithTools(rp.Tool(getWeather)))
//	// … run it: a request that differs from the recorded one fails the run with a [*DriftError] …
//	err := rp.Check() // every recorded call was made
//
// A recording is a version 2 [mock.ScriptFile]: hand-written scripts still
// read, and a recording replays through [mock.ScriptFile.Model] too.
// Secrets are redacted, with the core's redactor, before anything is kept.
package record
