//go:build !unix

package evals

import "os"

// lockFile is a no-op where the system has no flock: appends are then
// serialised within the process only.
func lockFile(*os.File) (unlock func(), err error) { return func() {}, nil }
