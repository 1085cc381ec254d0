//go:build linux && !cgo

package starlarktool

// shrinkThreadMemory has nothing to do without cgo: the Go runtime then
// starts its threads on small stacks from its own heap, which the caps
// already count, and no C library allocates.
func shrinkThreadMemory() error { return nil }

// defaultThreadStack reports 0: without cgo no C library default applies.
func defaultThreadStack() int { return 0 }
