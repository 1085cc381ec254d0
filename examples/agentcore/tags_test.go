package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var providers = []string{"openai", "anthropic", "gemini", "bedrock"}

func TestAgentcoreExample_ProviderTagLeavesOnlyItsProviderOut(t *testing.T) {
	for _, omit := range providers {
		t.Run("no"+omit, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-tags", "no"+omit, ".").CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			deps := strings.Fields(string(out))
			for _, p := range providers {
				pkg := "github.com/paigasus/helikon/provider/" + p
				if linked, want := slices.Contains(deps, pkg), p != omit; linked != want {
					t.Errorf("-tags no%s: %s linked = %v, want %v", omit, pkg, linked, want)
				}
			}
		})
	}
}

func TestAgentcoreExample_NobedrockBuildsAndIsSmaller(t *testing.T) {
	if testing.Short() {
		t.Skip("links the binary twice")
	}
	dir := t.TempDir()
	size := func(tags string) int64 {
		fi, err := os.Stat(build(t, dir, ".", tags))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	full, slim := size(""), size("nobedrock")
	if slim >= full {
		t.Errorf("-tags nobedrock: %d bytes, not smaller than the default build's %d", slim, full)
	}
	t.Logf("default %d bytes, -tags nobedrock %d", full, slim)
}
