//go:build !linux

package bash

import (
	"errors"
	"runtime"
)

type cgroups struct {
	pids, memory string
	swapCapped   bool
}

type callCgroup struct{}

func findCgroups(bool) (*cgroups, error) {
	return nil, errors.New("control groups are a Linux feature; this is " + runtime.GOOS)
}

func (g *cgroups) newCall(int, uint64) (*callCgroup, error) { return nil, errors.New("no cgroups") }
func (c *callCgroup) add(int) error                         { return errors.New("no cgroups") }
func (c *callCgroup) kill()                                 {}
func (c *callCgroup) remove() error                         { return nil }
func (c *callCgroup) oomKills() int                         { return 0 }
func (c *callCgroup) watchOOM() (<-chan struct{}, func(), error) {
	return nil, func() {}, nil
}
