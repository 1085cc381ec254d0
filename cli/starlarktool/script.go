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

var (
	decode = starlarkjson.Module.Members["decode"]
	encode = starlarkjson.Module.Members["encode"]
)

// script is a compiled script whose top level has run, as a worker holds
// it: its frozen globals and its run function. Only a worker process
// evaluates Starlark; see [WorkerMain].
type script struct {
	filename string
	run      *starlark.Function
}

// load parses filename's src, runs its top level under lim and checks that
// it defines run(args) with one parameter.
func load(filename, src string, lim Limits) (*script, *ScriptError) {
	_, prog, err := starlark.SourceProgramOptions(fileOptions, filename, src, predeclared.Has)
	if err != nil {
		return nil, compileError(filename, err)
	}
	thread, stop := newThread(context.Background(), filename, lim)
	globals, err := prog.Init(thread, predeclared)
	if err != nil {
		return nil, stop(evalError(filename, err))
	}
	stop(nil)
	globals.Freeze()
	fn, ok := globals["run"].(*starlark.Function)
	if !ok {
		return nil, &ScriptError{File: filename, Msg: "the script does not define run(args): add def run(args): … returning the tool's result"}
	}
	if fn.NumParams() != 1 {
		return nil, &ScriptError{File: filename, Line: int(fn.Position().Line),
			Msg: fmt.Sprintf("run takes %d parameters; it must take exactly one, args", fn.NumParams())}
	}
	return &script{filename: filename, run: fn}, nil
}

// call runs run(args) under lim and returns the result as JSON.
func (s *script) call(ctx context.Context, args string, lim Limits) (string, *ScriptError) {
	thread, stop := newThread(ctx, s.filename, lim)
	in, err := starlark.Call(thread, decode, starlark.Tuple{starlark.String(args)}, nil)
	if err != nil {
		return "", stop(&ScriptError{File: s.filename, Msg: fmt.Sprintf("arguments: %v", err), err: err})
	}
	out, err := starlark.Call(thread, s.run, starlark.Tuple{in}, nil)
	if err != nil {
		return "", stop(evalError(s.filename, err))
	}
	enc, err := starlark.Call(thread, encode, starlark.Tuple{out}, nil)
	if err != nil {
		return "", stop(&ScriptError{File: s.filename, Line: int(s.run.Position().Line),
			Msg: fmt.Sprintf("run returned a %s that has no JSON form: %v", out.Type(), err), err: err})
	}
	stop(nil)
	res := string(enc.(starlark.String))
	if len(res) > lim.MaxOutputBytes {
		return "", &ScriptError{File: s.filename, Line: int(s.run.Position().Line), Limit: LimitOutput,
			Msg: fmt.Sprintf("run returned %d bytes of JSON, over the %d-byte output cap", len(res), lim.MaxOutputBytes)}
	}
	return res, nil
}

// newThread returns a sandboxed thread: no load(), print discarded, the
// step cap set, cancelled when ctx ends or the time cap passes. stop
// releases the timer and, given the run's error, marks which cap (if any)
// stopped it.
func newThread(ctx context.Context, name string, lim Limits) (*starlark.Thread, func(*ScriptError) *ScriptError) {
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
			thread.Cancel(fmt.Sprintf("time cap of %v exceeded", lim.Timeout))
		} else {
			thread.Cancel("the call was cancelled")
		}
	})
	return thread, func(se *ScriptError) *ScriptError {
		stopAfter()
		timedOut := errors.Is(context.Cause(ctx), context.DeadlineExceeded)
		cancel()
		if se == nil {
			return nil
		}
		switch {
		case thread.ExecutionSteps() >= lim.MaxSteps:
			se.Limit = LimitSteps
		case timedOut:
			se.Limit = LimitTime
		}
		return se
	}
}
