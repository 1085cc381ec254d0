//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// oNonblock keeps an open of a FIFO from blocking.
const oNonblock = syscall.O_NONBLOCK

// linkCount returns the number of hard links of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
