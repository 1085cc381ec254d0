package main

import (
	"fmt"
	"os"

	"github.com/paigasus/helikon"
)

// selectModel returns the model HELIKON_PROVIDER names (HELIKON_MODEL
// overrides its id), or stand when it names none. The example picks its
// providers itself, rather than through the other examples' envmodel,
// because its Bedrock takes the container's credentials without the AWS
// SDK's whole credential chain (see provider_bedrock.go); each provider's
// file has a no<provider> build tag that leaves it out.
func selectModel(stand helikon.Model) (helikon.Model, error) {
	id := os.Getenv("HELIKON_MODEL")
	var m helikon.Model
	var err error
	switch p := os.Getenv("HELIKON_PROVIDER"); p {
	case "", "mock":
		return stand, nil
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
		return nil, fmt.Errorf("HELIKON_PROVIDER=%s: %w", os.Getenv("HELIKON_PROVIDER"), err)
	}
	return m, nil
}

// asModel converts a constructor's typed result to a helikon.Model,
// keeping a nil model nil.
func asModel[M helikon.Model](m M, err error) (helikon.Model, error) {
	if err != nil {
		return nil, err
	}
	return m, nil
}

// omitted reports that HELIKON_PROVIDER names a provider this build left
// out with its no<provider> tag.
func omitted(provider string) error {
	return fmt.Errorf("%s was left out of this build (-tags no%s); rebuild without the tag to use it", provider, provider)
}
