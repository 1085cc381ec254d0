//go:build !linux

package bash

import (
	"fmt"
	"os/exec"
	"runtime"
)

func kernelSupport() error {
	return fmt.Errorf("%w: os sandbox: Landlock and seccomp are Linux features; this is %s", ErrUnsupportedPlatform, runtime.GOOS)
}

func startConfined(*exec.Cmd, *confineSpec) error { return kernelSupport() }

type compiled struct{}

func (c *confineSpec) compile() error { return kernelSupport() }

func checkHardLinks(string) error { return kernelSupport() }

func prepareUser(*local, hostConfig, string) error { return kernelSupport() }

func (c *confineSpec) scopes() string { return "" }
