package main

import (
	"testing"

	"github.com/paigasus/helikon/internal/initcost"
)

// totalInitAllocBound bounds what the helikon command's packages, the
// dependencies' included, allocate before main. The command reads
// agents.toml at run time, so it links every provider and protocol, and
// every `helikon run` — and every Starlark worker, a copy of the command —
// pays their inits: 987,984 B on 2026-12-04, 1,265,464 B while package
// a2a reached remotes through a2a-go's a2aclient, which linked gRPC and
// the protocol buffers' descriptors (277 KB: the test fails with them
// back), 1,731,000 B while provider/bedrock linked the AWS SDK's
// bedrockruntime client (its schemas and endpoint rules, 443 KB). Most of
// the rest is the AWS credential chain's STS, SSO, SSO-OIDC and sign-in
// clients (their schemas and endpoint tables, about 550 KB, linked by
// cli's Bedrock configuration) and jsonschema-go (81 KB).
const totalInitAllocBound = 1100 << 10

// TestHelikon_InitAllocatesLittle runs the built command with
// GODEBUG=inittrace=1 and --version, which exits right after init, and
// fails when a package of this module allocates more than
// initcost.PackageBound before main, or the whole binary more than
// totalInitAllocBound.
func TestHelikon_InitAllocatesLittle(t *testing.T) {
	bin := initcost.Build(t, ".")
	sum := initcost.Check(t, initcost.Run(t, bin, "--version"), totalInitAllocBound)
	t.Logf("%d B allocated at init", sum)
}
