//go:build !race

package mcp_test

// manyTools is how many tools the big-listing test offers.
const manyTools = 10_000
