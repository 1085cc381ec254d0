package main

import (
	"fmt"
	"os"

	"github.com/paigasus/helikon"
)

// selectModel picks the model from HELIKON_PROVIDER (mock by default).
func selectModel() (helikon.Model, error) {
	switch p := os.Getenv("HELIKON_PROVIDER"); p {
	case "", "mock":
		return scriptedModel(), nil
	default:
		return nil, fmt.Errorf("HELIKON_PROVIDER=%q: unknown provider (want mock)", p)
	}
}
