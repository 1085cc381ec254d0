package governance

import (
	"encoding/json"
	"log/slog"
	"strings"
	"sync"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/shellstmt"
)

// ShellTool is a [Tool] that runs a shell command line. Declaring it puts
// the tool under the shell rules, whatever its name: [DenyBash],
// [AllowBash], the Command and Write tests of [GuardRule] and the default
// [DestructiveGuards] all read the command line ShellCommand returns.
//
// ShellCommand returns the command line the call with args would run. It
// must not run anything. An error fails the call closed: the permission
// pipeline denies it, naming the tool.
//
// A tool named Bash that does not implement ShellTool is treated as one
// whose command is its "command" string argument.
type ShellTool interface {
	helikon.Tool
	ShellCommand(args json.RawMessage) (string, error)
}

// FileTool is a [Tool] that reads or writes files. Declaring it puts the
// tool under the path rules, whatever its name: [DenyRead] and [AllowRead]
// match the paths it reads, [DenyEdit] and [AllowEdit] the paths it writes,
// and the Write test of [GuardRule] and the default [DestructiveGuards] see
// every path it writes.
//
// FileAccess returns the files the call with args would touch. It must not
// touch them. An error fails the call closed: the permission pipeline
// denies it, naming the tool.
//
// Tools named Read (which reads) and Write, Edit, MultiEdit or NotebookEdit
// (which write) that do not implement FileTool are treated as ones whose
// path is their "file_path", "path" or "notebook_path" string argument.
type FileTool interface {
	helikon.Tool
	FileAccess(args json.RawMessage) ([]FileAccess, error)
}

// PathResolver is a [ShellTool] whose commands start in a workspace
// directory this process can see. The rules use it to follow symlinks in
// the paths a command names, as the file tools do for theirs.
//
// ResolvePath returns where p, a path a command names (relative to the
// workspace, or absolute), leads with every symlink in it followed:
// slash-separated and relative to the workspace when it lies inside it, p
// cleaned when it lies outside (where the tool does not look). It fails
// when it cannot decide — a symlink loop, a link leaving the workspace, an
// error other than "does not exist" — and the rules then fail closed. It
// must not create or change anything.
type PathResolver interface {
	ResolvePath(p string) (string, error)
}

// FileAccess is one file a [FileTool] call touches.
type FileAccess struct {
	// Path is the file, as the tool will resolve it.
	Path string
	// Resolved is Path with every symlink in it followed, when the tool
	// can tell (empty otherwise). Deny rules and guards match either
	// path, allow rules both, so a link such as "g -> .git" does not
	// carry a write past a rule about ".git/**". A tool that cannot
	// decide where a path resolves (a symlink loop, a link leaving its
	// root) returns an error from FileAccess instead, which denies the
	// call.
	Resolved string
	// Write reports that the call creates, changes or removes the file.
	Write bool
}

// shellLikeKeys are argument names that suggest a tool runs a command.
var shellLikeKeys = [...]string{"command", "cmd", "script"}

// shellLikeNames are name fragments that suggest a tool runs a command.
var shellLikeNames = [...]string{"shell", "bash", "command", "exec", "terminal", "cmd", "script"}

// warnedUndeclared holds the names of tools already warned about, so each
// is reported once per process.
var warnedUndeclared sync.Map

// warnUndeclaredShell logs once when t looks like it runs shell commands
// but declares neither [ShellTool] nor [FileTool], since no shell rule or
// guard then protects its calls.
func warnUndeclaredShell(agent string, t helikon.Tool) {
	_, shell := t.(ShellTool)
	class, builtin := builtinClass(t.Name())
	if shell || class == classBash {
		warnNoShellParser(agent, t.Name())
		return
	}
	if _, file := t.(FileTool); file || builtin {
		return
	}
	why := shellLikeness(t)
	if why == "" {
		return
	}
	if _, seen := warnedUndeclared.LoadOrStore(t.Name(), true); seen {
		return
	}
	slog.Warn("helikon: tool looks like it runs shell commands but does not declare governance.ShellTool; no shell rule or guard protects it",
		"agent", agent, "tool", t.Name(), "because", why)
}

// warnNoShellParser logs once per tool name when an agent is built with a
// shell tool in a program that links no shell parser: its compound command
// lines are then unresolved, and asked about or denied.
func warnNoShellParser(agent, tool string) {
	if shellstmt.Parser != nil {
		return
	}
	if _, seen := warnedNoParser.LoadOrStore(tool, true); seen {
		return
	}
	slog.Warn("helikon: a shell tool in a program that links no shell parser; command lines beyond plain words, quotes, &&, ||, ;, | and redirections to plain paths are unresolved and the rules fail closed on them (import _ \"github.com/paigasus/helikon/governance/shellsyntax\")",
		"agent", agent, "tool", tool)
}

// warnedNoParser holds the shell tools already warned about by
// warnNoShellParser.
var warnedNoParser sync.Map

// shellLikeness says why t looks like a shell tool, or "".
func shellLikeness(t helikon.Tool) string {
	if s := t.InputSchema(); s != nil {
		for _, k := range shellLikeKeys {
			if p, ok := s.Properties[k]; ok && p != nil && (p.Type == "string" || p.Type == "") {
				return "its arguments have a " + k + " string"
			}
		}
	}
	name := strings.ToLower(t.Name())
	for _, frag := range shellLikeNames {
		if strings.Contains(name, frag) {
			return "its name contains " + frag
		}
	}
	return ""
}
