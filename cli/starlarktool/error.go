package starlarktool

import (
	"errors"
	"fmt"
	"strings"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// ScriptError is a script that failed to compile or run, located in its
// source.
type ScriptError struct {
	// File is the script's file name; Line and Col are 1-based, 0 when
	// unknown.
	File      string
	Line, Col int
	// Msg is what went wrong.
	Msg string
	// Backtrace is Starlark's call stack for a runtime error.
	Backtrace string
	// Limit names the cap that stopped the run; it is empty when the
	// script failed on its own (a syntax error, fail(), a bad index).
	Limit Limit
	err   error
}

// Limit names one of a script's caps (see [Limits]).
type Limit string

// The caps a run can hit. Each is reported as a [ScriptError] whose Limit
// is set, inside a [helikon.ToolError].
const (
	// LimitSteps: more Starlark instructions than MaxSteps.
	LimitSteps Limit = "steps"
	// LimitTime: the run outlasted Timeout. A built-in that does not
	// return by then is stopped with the whole worker.
	LimitTime Limit = "time"
	// LimitCPU: the worker's CPU time ran past the call's share. A
	// backstop to LimitTime.
	LimitCPU Limit = "cpu"
	// LimitMemory: the worker could not map more memory under
	// MemoryBytes, or a run's Go stack (nesting) outgrew its share of it.
	LimitMemory Limit = "memory"
	// LimitOutput: the JSON result is larger than MaxOutputBytes.
	LimitOutput Limit = "output"
	// LimitArgs: the JSON arguments are larger than MaxArgsBytes.
	LimitArgs Limit = "arguments"
)

// Error formats the problem as file:line:col: message.
func (e *ScriptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the Starlark error underneath, if any.
func (e *ScriptError) Unwrap() error { return e.err }

// capText keeps e's message and backtrace within max bytes together, so
// an error (a fail() with megabytes of text) is under the same cap as a
// result.
func (e *ScriptError) capText(max int) {
	room := max - len(e.File) - 32
	if room < 64 {
		room = 64
	}
	e.Msg = cut(e.Msg, room)
	e.Backtrace = cut(e.Backtrace, room-len(e.Msg))
}

// cut shortens s to at most n bytes, saying how much it dropped.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < 48 {
		return ""
	}
	tail := fmt.Sprintf(" … (cut from %d bytes)", len(s))
	return strings.ToValidUTF8(s[:n-len(tail)], "") + tail
}

// evalError locates a Starlark runtime error at its innermost script frame.
func evalError(file string, err error) *ScriptError {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return &ScriptError{File: file, Msg: err.Error(), err: err}
	}
	se := &ScriptError{File: file, Msg: ee.Msg, Backtrace: ee.Backtrace(), err: err}
	for i := 0; i < len(ee.CallStack); i++ {
		if pos := ee.CallStack.At(i).Pos; pos.IsValid() && pos.Filename() == file {
			se.setPos(pos)
			break
		}
	}
	return se
}

// compileError locates a syntax or name-resolution error.
func compileError(file string, err error) *ScriptError {
	se := &ScriptError{File: file, Msg: err.Error(), err: err}
	var syn syntax.Error
	var list resolve.ErrorList
	switch {
	case errors.As(err, &syn):
		se.Msg = syn.Msg
		se.setPos(syn.Pos)
	case errors.As(err, &list) && len(list) > 0:
		se.Msg = list[0].Msg
		if len(list) > 1 {
			se.Msg += fmt.Sprintf(" (and %d more)", len(list)-1)
		}
		se.setPos(list[0].Pos)
	}
	return se
}

func (e *ScriptError) setPos(p syntax.Position) {
	e.Line, e.Col = int(p.Line), int(p.Col)
}
