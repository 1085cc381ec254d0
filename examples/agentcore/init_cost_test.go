package main

import (
	"testing"

	"github.com/paigasus/helikon/internal/initcost"
)

// totalInitAllocBound bounds what every package of the binary, the
// dependencies' included, allocates before main: 241 KB on 2026-12-03,
// since provider/bedrock calls ConverseStream without the AWS SDK's
// bedrockruntime client (704 KB before: its schemas 379 KB and endpoint
// rules 64 KB), and 1.32 MB while the binary also linked the MCP SDK and
// the AWS SDK's credential chain (its STS, SSO, SSO-OIDC and sign-in
// clients' schemas and endpoint tables). A container start pays it again
// every time; the bound fails on the return of the bedrockruntime client
// or of any other package building 80 KB of tables at init.
const totalInitAllocBound = 320 << 10

// TestAgentcoreExample_OwnPackagesAllocateLittleAtInit runs the built
// example with GODEBUG=inittrace=1 and an unknown flag, so it exits right
// after init, and fails when a package of this module allocates more than
// initcost.PackageBound before main, or the whole binary more than
// totalInitAllocBound.
func TestAgentcoreExample_OwnPackagesAllocateLittleAtInit(t *testing.T) {
	bin := initcost.Build(t, ".")
	initcost.Check(t, initcost.Run(t, bin, "-no-such-flag"), totalInitAllocBound)
}
