//go:build race

package starlarktool_test

// raceBuild is set in a -race build, whose shadow memory swells every
// process's resident size beyond what its caps bound.
const raceBuild = true
