package governance

import "testing"

func TestPathRules_DenyMatchesEitherPathAllowNeedsBoth(t *testing.T) {
	linked := FileAccess{Path: "s/main.go", Resolved: "src/main.go", Write: true}
	plain := FileAccess{Path: "docs/a.md", Resolved: "docs/a.md", Write: true}
	tests := []struct {
		name string
		r    rule
		f    FileAccess
		deny bool // evaluate as a deny rule (fail closed)
		want bool
	}{
		{"deny on the resolved path", DenyEdit("src/**").r, linked, true, true},
		{"deny on the written path", DenyEdit("s/**").r, linked, true, true},
		{"deny misses both", DenyEdit("lib/**").r, linked, true, false},
		{"allow of the written path alone does not cover the target", AllowEdit("s/**").r, linked, false, false},
		{"allow of the target alone does not cover the link", AllowEdit("src/**").r, linked, false, false},
		{"allow covering both", AllowEdit("**").r, linked, false, true},
		{"plain path unchanged", AllowEdit("docs/**").r, plain, false, true},
		{"no resolved path reads as before", DenyEdit("s/**").r, FileAccess{Path: "s/x", Write: true}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.matchesFile(tt.f, tt.deny); got != tt.want {
				t.Errorf("matchesFile = %v, want %v", got, tt.want)
			}
		})
	}
}
