package mcp

import (
	"runtime/debug"
	"sync"
)

// modulePath is the module whose version an [AgentServer] reports.
const modulePath = "github.com/paigasus/helikon"

// moduleVersion is the helikon version built into the running program, the
// default serverInfo.version of an [AgentServer].
var moduleVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(bi)
})

// versionOf finds helikon in bi: the main module (a program built in this
// repository, such as the helikon CLI) or a dependency. A module built from
// a working tree has no version ("(devel)", or a dependency replaced by a
// directory); the VCS revision go build stamps, when there is one, then
// says which tree: "(devel)+e18e2b0abcde", "-dirty" when it had changes.
func versionOf(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if mod.Path != modulePath {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				mod = d
				break
			}
		}
	}
	if mod == nil {
		return "(devel)"
	}
	if mod.Replace != nil {
		mod = mod.Replace
	}
	if mod.Version != "" && mod.Version != "(devel)" {
		return mod.Version
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" || bi.Main.Path != modulePath {
		return "(devel)" // the stamp describes the main module, not helikon
	}
	v := "(devel)+" + rev[:min(12, len(rev))]
	if dirty {
		v += "-dirty"
	}
	return v
}
