//go:build !mcp

package main

import (
	"strings"
	"testing"
)

func TestAgentcoreExample_MCPFlagWithoutTheTagSaysWhichTag(t *testing.T) {
	err := serveMCP(t.Context(), nil, "", nil)
	if err == nil || !strings.Contains(err.Error(), "-tags mcp") {
		t.Fatalf("serveMCP in a build without the tag: %v; want an error naming -tags mcp", err)
	}
}
