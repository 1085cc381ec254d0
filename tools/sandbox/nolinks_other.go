//go:build !linux

package sandbox

import (
	"os"
	"sync/atomic"
)

// noOpenat2 is always set here: there is no openat2.
var noOpenat2 = func() *atomic.Bool { var b atomic.Bool; b.Store(true); return &b }()

// noLinks reports false: without openat2 the path is walked a component
// at a time.
func (s *Sandbox) noLinks(string) bool { return false }

// openDirHandle opens nothing: noLinks needs none here.
func openDirHandle(*os.Root) *os.File { return nil }
