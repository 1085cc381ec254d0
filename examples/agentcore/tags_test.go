package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

var providers = []string{"openai", "anthropic", "gemini", "bedrock"}

// TestAgentcoreExample_ProviderTagLeavesOnlyItsProviderOut reads the
// build graph; what each tag set saves is a measurement, not a test:
// .ci/sizes builds the release binaries, prints their sizes and fails CI
// when a provider tag does not leave a smaller binary, and
// BenchmarkColdStartToPing measures their start-up.
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

// TestAgentcoreExample_MCPProtocolOnlyWithTheMCPTag: the default build
// serves the HTTP protocol without linking the MCP SDK; -tags mcp adds the
// MCP protocol (and -mcp then serves it).
func TestAgentcoreExample_MCPProtocolOnlyWithTheMCPTag(t *testing.T) {
	for _, tt := range []struct {
		tags string
		want bool
	}{{"", false}, {"mcp", true}} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tt.tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps := strings.Fields(string(out))
		for _, pkg := range []string{"github.com/modelcontextprotocol/go-sdk/mcp", "github.com/paigasus/helikon/agentcore/mcpserver"} {
			if got := slices.Contains(deps, pkg); got != tt.want {
				t.Errorf("-tags %q: %s linked = %v, want %v", tt.tags, pkg, got, tt.want)
			}
		}
	}
}

// TestAgentcoreExample_BedrockWithoutAnySDKServiceClient: the default
// build's Bedrock takes the container's credentials without the AWS SDK's
// config package, whose credential chain links the STS, SSO, SSO-OIDC and
// sign-in clients (3.9 MB, and their schemas and endpoint tables at init),
// and calls ConverseStream without the SDK's bedrockruntime client (1.5
// MB, and 462 KB allocated at init, its schemas and endpoint rules), and
// reads the execution role from the metadata service without the SDK's
// metadata client (373 KB: its middleware stack, retryer and rate
// limiter): no package of aws-sdk-go-v2/service, config or feature/ec2/imds
// is linked.
func TestAgentcoreExample_BedrockWithoutAnySDKServiceClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/paigasus/helikon/provider/bedrock") {
		t.Fatal("the default build does not link provider/bedrock")
	}
	for _, pkg := range deps {
		for _, heavy := range []string{"aws-sdk-go-v2/config", "aws-sdk-go-v2/service/", "aws-sdk-go-v2/feature/ec2/imds", "aws-sdk-go-v2/credentials/ec2rolecreds"} {
			if strings.HasPrefix(pkg, "github.com/aws/"+heavy) {
				t.Errorf("the default build links %s", pkg)
			}
		}
	}
}

// TestAgentcoreExample_LinksNoShellParser: the agent runs no shell tool,
// so the binary leaves out the Bash parser the governance rules read shell
// tools' command lines with (mvdan.cc/sh: 0.29 MB and its package init on
// every container start), which only a program importing tools/bash or
// governance/shellsyntax links.
func TestAgentcoreExample_LinksNoShellParser(t *testing.T) {
	for _, tags := range []string{"", "noopenai,noanthropic,nogemini"} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if strings.HasPrefix(pkg, "mvdan.cc/sh/") || pkg == "github.com/paigasus/helikon/governance/shellsyntax" {
				t.Errorf("-tags %q links %s", tags, pkg)
			}
		}
	}
}
