// Package shellsyntax links a Bash parser (mvdan.cc/sh/v3/syntax) into the
// program, for the governance rules to read shell tools' command lines
// with. Import it for its side effect:
//
//	import _ "github.com/paigasus/helikon/governance/shellsyntax"
//
// A program that registers a shell tool needs it: tools/bash imports it
// itself; a program with a shell tool of its own (a [governance.ShellTool],
// or a tool named Bash) imports it. Without it the rules still read the
// common command lines — plain and simply quoted words joined by &&, ||,
// ;, | and newlines, with redirections to plain paths — but every other
// one (a $ expansion, a subshell, a loop, a heredoc, …) is unresolved, and
// the rules fail closed on it: a deny rule or guard asks the approver, an
// allow rule does not admit it. governance warns, once per tool, when an
// agent is built with a shell tool in a program that does not link the
// parser.
//
// A program that runs no shell tool does not need it, and leaves out its
// 0.29 MB and its package init (examples/agentcore).
package shellsyntax
