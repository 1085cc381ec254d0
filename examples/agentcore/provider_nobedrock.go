//go:build nobedrock

package main

import "github.com/paigasus/helikon"

func bedrockModel(string) (helikon.Model, error) { return nil, omitted("bedrock") }
