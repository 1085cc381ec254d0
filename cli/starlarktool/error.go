package starlarktool

import (
	"errors"
	"fmt"

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
	err       error
}

// Error formats the problem as file:line:col: message.
func (e *ScriptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Unwrap returns the Starlark error underneath, if any.
func (e *ScriptError) Unwrap() error { return e.err }

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
