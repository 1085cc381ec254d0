//go:build !sqlite_cgo

package main

import _ "modernc.org/sqlite" // registers sqliteDriver

const sqliteDriver = "sqlite"
