//go:build race

package mcp_test

// manyTools is how many tools the big-listing test offers: fewer under the
// race detector, which makes listing ten times slower (same code path, still
// several pages).
const manyTools = 2_500
