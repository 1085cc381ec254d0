//go:build sqlite_cgo && !cgo

package sqlite

// The sqlite_cgo tag asks for go-sqlite3, which needs cgo: without it
// go-sqlite3 builds a stub whose every call fails at run time. Stopping the
// build here says so before a binary ships.
var _ = sqlite_cgo_tag_needs_CGO_ENABLED_1_and_a_C_compiler
