// Package starlarktool runs Starlark scripts as sandboxed helikon tools.
//
// A script defines run(args): args is the call's validated JSON arguments
// converted to Starlark values (objects become dicts, arrays lists), and the
// value run returns is converted back to JSON as the tool's output. Scripts
// get the Starlark core language plus the json module (json.encode,
// json.decode, json.indent) and nothing else: load() is refused, and there is
// no file, network, environment or clock access. Every call runs under a
// step cap, a time cap and a cap on the output's size; a script error or a
// cap hit is a [helikon.ToolError] naming the script's file and line.
//
//	t, err := starlarktool.New("double", "Doubles n", params, "double.star",
//		"def run(args):\n    return {\"n\": args[\"n\"] * 2}\n")
//
// What the caps cannot bound: a single built-in operation such as string
// repetition may allocate up to Starlark's own 1 GiB per-operation limit
// before the step cap sees it; run untrusted scripts in a process whose
// memory is limited by the operating system.
package starlarktool
