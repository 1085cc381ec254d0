//go:build !linux

package bash

import (
	"context"
	"fmt"
	"runtime"
)

// Only Linux runs a confined command as a sandbox user (see
// prepareUser), so no backend here ends its calls by killing a uid's
// processes: l.sweeps() is false and these are never called.

func lockUser(context.Context, uint32) (func(), error) {
	return nil, fmt.Errorf("%w: no sandbox user on %s", ErrUnsupportedPlatform, runtime.GOOS)
}

func (l *local) sweepUser() {}
