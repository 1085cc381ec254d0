//go:build noanthropic

package main

import "github.com/paigasus/helikon"

func anthropicModel(string) (helikon.Model, error) { return nil, omitted("anthropic") }
