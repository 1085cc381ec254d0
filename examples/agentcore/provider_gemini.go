//go:build !nogemini

package main

import (
	"cmp"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
)

func geminiModel(id string) (helikon.Model, error) {
	return asModel(gemini.New(cmp.Or(id, "gemini-2.5-flash")))
}
