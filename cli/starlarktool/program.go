package starlarktool

import (
	"context"
	"errors"
	"fmt"

	starlarkjson "go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// fileOptions admits while loops and recursion: the step cap, not the
// grammar, is what bounds a script.
var fileOptions = &syntax.FileOptions{While: true, Recursion: true}

// predeclared is everything a script can name beyond the core language.
var predeclared = starlark.StringDict{"json": starlarkjson.Module}

// Program is a compiled script whose top level has run: its frozen globals
// and its run function.
type Program struct {
	filename string
	run      *starlark.Function
}

// Compile parses filename's src, runs its top level under the default
// [Limits] and checks that it defines run(args) with one parameter.
func Compile(filename, src string) (*Program, error) {
	return compile(filename, src, DefaultLimits())
}

func compile(filename, src string, lim Limits) (*Program, error) {
	_, prog, err := starlark.SourceProgramOptions(fileOptions, filename, src, predeclared.Has)
	if err != nil {
		return nil, compileError(filename, err)
	}
	thread, stop := newThread(context.Background(), filename, lim)
	defer stop()
	globals, err := prog.Init(thread, predeclared)
	if err != nil {
		return nil, evalError(filename, err)
	}
	globals.Freeze()
	fn, ok := globals["run"].(*starlark.Function)
	if !ok {
		return nil, &ScriptError{File: filename, Msg: "the script does not define run(args): add def run(args): … returning the tool's result"}
	}
	if fn.NumParams() != 1 {
		return nil, &ScriptError{File: filename, Line: int(fn.Position().Line),
			Msg: fmt.Sprintf("run takes %d parameters; it must take exactly one, args", fn.NumParams())}
	}
	return &Program{filename: filename, run: fn}, nil
}

// newThread returns a sandboxed thread: no load(), print discarded, the
// step cap set, cancelled when ctx ends or the time cap passes. stop
// releases the timer.
func newThread(ctx context.Context, name string, lim Limits) (*starlark.Thread, func()) {
	thread := &starlark.Thread{
		Name:  name,
		Print: func(*starlark.Thread, string) {},
		Load: func(*starlark.Thread, string) (starlark.StringDict, error) {
			return nil, errors.New("load is not allowed in tool scripts")
		},
	}
	thread.SetMaxExecutionSteps(lim.MaxSteps)
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	stopAfter := context.AfterFunc(ctx, func() {
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			thread.Cancel(fmt.Sprintf("time limit of %v exceeded", lim.Timeout))
		} else {
			thread.Cancel("the call was cancelled")
		}
	})
	return thread, func() { stopAfter(); cancel() }
}
