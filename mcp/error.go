package mcp

import (
	"errors"
	"strings"
)

// ErrorKind says which stage of an MCP connection or server failed.
type ErrorKind string

// The error kinds.
const (
	// KindConnect: the initialize handshake or the first tool listing failed.
	KindConnect ErrorKind = "connect"
	// KindSpawn: the server's child process could not be started.
	KindSpawn ErrorKind = "spawn"
	// KindService: a request to a connected server failed (a tool-list
	// refresh, or a server that answered with something unusable).
	KindService ErrorKind = "service"
	// KindBind: the HTTP server could not listen on its address.
	KindBind ErrorKind = "bind"
	// KindServe: serving ended abnormally.
	KindServe ErrorKind = "serve"
	// KindOther: anything else, such as an invalid option.
	KindOther ErrorKind = "other"
)

// Error is the package's one error type. Tool calls never return it: a
// failing remote tool is a [helikon.ToolError], because an agent only ever
// sees the Tool interface.
type Error struct {
	Kind ErrorKind
	// Server names the server: its command, URL or implementation name.
	Server string
	// Err is the cause.
	Err error
}

// Error describes the failure.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("mcp: ")
	b.WriteString(string(e.Kind))
	if e.Server != "" {
		b.WriteString(" " + e.Server)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is an [*Error] of kind k.
func IsKind(err error, k ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

func newError(kind ErrorKind, server string, err error) *Error {
	return &Error{Kind: kind, Server: server, Err: err}
}
