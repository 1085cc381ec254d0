package mcp

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf_ReportsHelikonsModuleVersionWhereverItSits(t *testing.T) {
	stamp := []debug.BuildSetting{{Key: "vcs.revision", Value: "e18e2b0abcdef0123456789"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "e18e2b0abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"main module, released", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v1.4.0"}}, "v1.4.0"},
		{"main module, a pseudo-version go build stamped", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "v0.0.0-20261202094833-e18e2b0abcde"}}, "v0.0.0-20261202094833-e18e2b0abcde"},
		{"main module from a working tree with a revision", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: stamp}, "(devel)+e18e2b0abcde"},
		{"main module from a tree with changes", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}, Settings: dirty}, "(devel)+e18e2b0abcde-dirty"},
		{"main module without VCS", debug.BuildInfo{Main: debug.Module{Path: modulePath, Version: "(devel)"}}, "(devel)"},
		{"a dependency", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "(devel)"}, Settings: stamp,
			Deps: []*debug.Module{{Path: "golang.org/x/text", Version: "v0.20.0"}, {Path: modulePath, Version: "v1.3.2"}}}, "v1.3.2"},
		{"a dependency replaced by another version", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.3.2", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.3.3"}}}}, "v1.3.3"},
		{"a dependency replaced by a directory: the app's revision is not ours", debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Settings: stamp,
			Deps: []*debug.Module{{Path: modulePath, Version: "v1.3.2", Replace: &debug.Module{Path: "../helikon"}}}}, "(devel)"},
		{"not linked at all", debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v2.0.0"}}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(&tt.bi); got != tt.want {
				t.Errorf("versionOf = %q, want %q", got, tt.want)
			}
		})
	}
}
