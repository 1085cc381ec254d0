//go:build !unix

package mcp

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(*exec.Cmd) {}
