//go:build noopenai

package main

import "github.com/paigasus/helikon"

func openaiModel(string) (helikon.Model, error) { return nil, omitted("openai") }
