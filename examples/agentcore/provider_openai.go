//go:build !noopenai

package main

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/openai"
)

func openaiModel(id string) (helikon.Model, error) {
	return asModel(openai.Chat(cmp.Or(id, "gpt-5-mini")))
}
