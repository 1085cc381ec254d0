//go:build !noanthropic

package main

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/anthropic"
)

func anthropicModel(id string) (helikon.Model, error) {
	return asModel(anthropic.Messages(cmp.Or(id, "claude-sonnet-4-6")))
}
