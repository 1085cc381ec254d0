package main

import (
	"testing"

	"github.com/paigasus/helikon/internal/initcost"
)

// totalInitAllocBound bounds what every package of the binary, the
// dependencies' included, allocates before main: 219 KB on 2026-12-03
// (jsonschema-go's reflection over its Schema type 81 KB of it, upstream),
// 241 KB while the example read the execution role through the AWS SDK's
// metadata client, 704 KB while provider/bedrock called ConverseStream
// through the SDK's bedrockruntime client (its schemas 379 KB and endpoint
// rules 64 KB), and 1.32 MB while the binary also linked the MCP SDK and
// the AWS SDK's credential chain (its STS, SSO, SSO-OIDC and sign-in
// clients' schemas and endpoint tables). A container start pays it again
// every time; the bound fails on the return of the bedrockruntime client
// or of any other package building 72 KB of tables at init.
const totalInitAllocBound = 288 << 10

// TestAgentcoreExample_OwnPackagesAllocateLittleAtInit runs the built
// example with GODEBUG=inittrace=1 and an unknown flag, so it exits right
// after init, and fails when a package of this module allocates more than
// initcost.PackageBound before main, or the whole binary more than
// totalInitAllocBound.
func TestAgentcoreExample_OwnPackagesAllocateLittleAtInit(t *testing.T) {
	bin := initcost.Build(t, ".")
	initcost.Check(t, initcost.Run(t, bin, "-no-such-flag"), totalInitAllocBound)
}
