// Package starlarktool runs Starlark scripts as sandboxed helikon tools.
//
// A script defines run(args): args is the call's validated JSON arguments
// converted to Starlark values (objects become dicts, arrays lists), and the
// value run returns is converted back to JSON as the tool's output. Scripts
// get the Starlark core language plus the json module (json.encode,
// json.decode, json.indent) and nothing else: load() is refused, and there is
// no file, network, environment or clock access.
//
// Every run (a call, or the top level when the script loads) is under the
// caps of [Limits]: steps, time, output, arguments and memory. A single
// built-in can do unbounded work in one step (json.encode of a list of
// repeated references is a terabyte; json.decode of a million "[" overflows
// Go's stack, which no recover catches), so no script runs in the program
// that uses this package: it runs in a worker process, the program itself
// re-executed, whose memory the kernel caps (RLIMIT_DATA), whose CPU time
// it caps (RLIMIT_CPU), and which the host kills 20 ms after the time cap
// if a built-in is still running. Workers are kept warm in a small pool
// and keep the scripts they loaded, so a warm call is one round trip over
// a pipe. A script error or a cap hit is a [helikon.ToolError] around a
// [ScriptError] naming the file and line, and the cap ([Limit]) if one
// stopped it; the program goes on, and the pool replaces a worker that
// died.
//
// A program that uses script tools must call [WorkerMain] first thing in
// main, and in TestMain; without it [New] and [Compile] fail with
// [ErrNoWorker] and no script runs. Workers need Linux: elsewhere [New] and
// [Compile] fail with [ErrUnsupportedPlatform].
//
//	func main() {
//		starlarktool.WorkerMain()
//		t, err := starlarktool.New("double", "Doubles n", params, "double.star",
//			"def run(args):\n    return {\"n\": args[\"n\"] * 2}\n")
//		…
//	}
package starlarktool
