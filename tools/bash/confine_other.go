//go:build !linux

package bash

import (
	"errors"
	"runtime"
)

func kernelSupport() error {
	return errors.New("bash: os sandbox: Landlock and seccomp are Linux features; this is " + runtime.GOOS)
}

func confine(*confineSpec) error { return kernelSupport() }
