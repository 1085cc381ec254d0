//go:build !linux

package bash

import (
	"errors"
	"runtime"
)

type cgroups struct{ pids string }

type callCgroup struct{}

func findCgroups() (*cgroups, error) {
	return nil, errors.New("control groups are a Linux feature; this is " + runtime.GOOS)
}

func (g *cgroups) newCall(int) (*callCgroup, error) { return nil, errors.New("no cgroups") }
func (c *callCgroup) add(int) error                 { return errors.New("no cgroups") }
func (c *callCgroup) kill()                         {}
func (c *callCgroup) remove() error                 { return nil }
