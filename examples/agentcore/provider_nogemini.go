//go:build nogemini

package main

import "github.com/paigasus/helikon"

func geminiModel(string) (helikon.Model, error) { return nil, omitted("gemini") }
