package initcost

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParse_ReadsEachPackagesBytesAndSkipsOtherLines(t *testing.T) {
	out := []byte(`init internal/bytealg @0 ms, 0 ms clock, 0 bytes, 0 allocs
helikon: unknown flag: --no-such-flag
init github.com/paigasus/helikon @1.2 ms, 0.01 ms clock, 360 bytes, 5 allocs
init github.com/aws/aws-sdk-go-v2/service/sts/schemas @12 ms, 0.13 ms clock, 82904 bytes, 499 allocs
`)
	got, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Init{{"internal/bytealg", 0}, {"github.com/paigasus/helikon", 360}, {"github.com/aws/aws-sdk-go-v2/service/sts/schemas", 82904}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %v, want %v", got, want)
	}
	if _, err := Parse([]byte("init x @1 ms, 0.1 ms clock, many bytes, 5 allocs\n")); err == nil {
		t.Error("Parse took a byte count that is not a number")
	}
}

// recorder keeps what Check reports instead of failing the test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheck_FailsOnOwnPackageOverItsBoundOrTotalOverTheBinarys(t *testing.T) {
	tests := []struct {
		name  string
		inits []Init
		total int
		want  []string // substrings of the errors, in order
	}{
		{"within both", []Init{{Module, 360}, {Module + "/governance", PackageBound}, {"dep", 500_000}}, 600_000, nil},
		{"own package over", []Init{{Module + "/internal/shellmatch", PackageBound + 1}}, 1 << 20, []string{"internal/shellmatch allocates"}},
		{"a dependency may exceed the per-package bound", []Init{{Module, 1}, {"github.com/x/schemas", 379_144}}, 1 << 20, nil},
		{"total over", []Init{{Module, 1}, {"github.com/x/schemas", 379_144}}, 300_000, []string{"allocate 379145 B at init, more than 300000"}},
		{"no package of the module", []Init{{"runtime", 0}}, 1, []string{"no inittrace line for a package of"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			Check(r, tt.inits, tt.total)
			if len(r.errs) != len(tt.want) {
				t.Fatalf("Check reported %q, want %d errors %q", r.errs, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(r.errs[i], w) {
					t.Errorf("error %d = %q, want it to contain %q", i, r.errs[i], w)
				}
			}
		})
	}
}
