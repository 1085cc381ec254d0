//go:build !unix

package sandbox

import "io/fs"

// oNonblock is zero where FIFOs do not block an open this way.
const oNonblock = 0

// linkCount reports one link where the platform does not say.
func linkCount(fs.FileInfo) uint64 { return 1 }
