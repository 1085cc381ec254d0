// Package sandbox gives an agent the file tools Read, Write, Edit and
// MultiEdit, confined to one directory opened as a capability on [os.Root].
//
// A [Sandbox] is the directory; the tools built on it resolve every path
// inside it. A path that would leave it — an absolute path, "..", a symlink
// whose target is outside (also one a shell command planted between two
// calls), /proc/self/root, or a file with more than one hard link — ends the
// call with a [helikon.ToolError] of kind Denied, and nothing outside the
// root is read or written.
//
// The tools declare what they do: [governance.FileTool] names the file each
// call touches, so every DenyRead, DenyEdit, AllowRead, AllowEdit and guard
// rule applies to them whatever they are called, and [helikon.EffectTool]
// says Read is ReadOnly and the others Write.
//
// The smallest use:
//
//	sb, err := sandbox.Open("./workspace")
//	if err != nil { … }
//	defer sb.Close()
//	tools, err := sb.Tools()
//	if err != nil { … }
//	agent, err := helikon.NewAgent("explorer", model, helikon.WithTools(tools...))
//
// Shell commands are not confined by a Sandbox: a child process does not
// inherit the capability. See package tools/bash for the execution
// backends that confine them.
package sandbox
