//go:build !unix

package main

// raiseFileLimit has nothing to raise: this system has no RLIMIT_NOFILE.
func raiseFileLimit() {}
