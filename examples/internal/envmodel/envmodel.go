// Package envmodel picks the examples' model from the environment, so that
// every example switches provider with one variable: HELIKON_PROVIDER is
// mock (the default, no key needed), openai (OPENAI_API_KEY), anthropic
// (ANTHROPIC_API_KEY), gemini (GEMINI_API_KEY or GOOGLE_API_KEY) or bedrock
// (AWS_REGION and the AWS credential chain), and
// HELIKON_MODEL overrides the model id.
//
// A binary links every provider's SDK by default. A deployer who uses one
// leaves the others out with build tags: noopenai, noanthropic, nogemini
// and nobedrock each drop one provider (bedrock's AWS SDK is most of an
// example's size), and selecting a provider the build left out fails with
// an [*OmittedError] naming the tag. The mock is always there.
package envmodel

import (
	"fmt"
	"os"

	"github.com/paigasus/helikon"
)

// Select returns the model HELIKON_PROVIDER names, or mock when it names
// none. Switching providers is this one switch; the agent, its tools and
// the run do not change.
func Select(mock helikon.Model) (helikon.Model, error) {
	pick, err := Picker()
	if err != nil {
		return nil, err
	}
	return pick(mock), nil
}

// Picker reads HELIKON_PROVIDER once, for an example with several agents:
// pick gives each agent its own scripted mock back when the variable names
// no provider, and otherwise the one model it names, which every agent
// shares (a model is safe for concurrent use).
func Picker() (pick func(mock helikon.Model) helikon.Model, err error) {
	id := os.Getenv("HELIKON_MODEL")
	var m helikon.Model
	switch p := os.Getenv("HELIKON_PROVIDER"); p {
	case "", "mock":
		return func(mock helikon.Model) helikon.Model { return mock }, nil
	case "openai":
		m, err = openaiModel(id)
	case "anthropic":
		m, err = anthropicModel(id)
	case "gemini":
		m, err = geminiModel(id)
	case "bedrock":
		m, err = bedrockModel(id)
	default:
		return nil, fmt.Errorf("HELIKON_PROVIDER=%q: unknown provider (want mock, openai, anthropic, gemini or bedrock)", p)
	}
	if err != nil {
		// The adapters' errors name the variable to set, e.g.
		// "openai: no API key: set OPENAI_API_KEY or pass openai.WithAPIKey".
		return nil, fmt.Errorf("HELIKON_PROVIDER=%s: %w", os.Getenv("HELIKON_PROVIDER"), err)
	}
	return func(helikon.Model) helikon.Model { return m }, nil
}

// asModel converts a constructor's typed result to a helikon.Model,
// keeping a nil model nil.
func asModel[M helikon.Model](m M, err error) (helikon.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}
