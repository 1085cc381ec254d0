package sidecar

import (
	"fmt"
	"strings"
)

// Error is one problem in a sidecar file, located by line (1-based, 0 when
// the problem has no single line, such as a missing file).
type Error struct {
	// File is the sidecar's path as given to [Load].
	File string
	// Line is the line the offending key or table is on.
	Line int
	// Key is the dotted key path, e.g. agents.triage.handoffs.
	Key string
	// Msg says what is wrong and, where it helps, what to do.
	Msg string
}

// Error formats the problem as file:line: key: message.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem [Load] found, in line order.
type Errors []*Error

// Error lists every problem, one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the individual errors, so errors.As finds an [*Error].
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
