package slowtest_test

import (
	"testing"

	"github.com/paigasus/helikon/internal/slowtest"
)

func TestEnabled_ByTheFlagOrByCI(t *testing.T) {
	for _, tt := range []struct {
		flag, ci string
		want     bool
		size     int
	}{
		{"", "", false, 2},
		{"0", "false", false, 2},
		{"1", "", true, 20},
		{"", "true", true, 20},
	} {
		t.Setenv("HELIKON_SLOW_TESTS", tt.flag)
		t.Setenv("CI", tt.ci)
		if got := slowtest.Enabled(); got != tt.want {
			t.Errorf("HELIKON_SLOW_TESTS=%q CI=%q: Enabled() = %v, want %v", tt.flag, tt.ci, got, tt.want)
		}
		if got := slowtest.Size(2, 20); got != tt.size {
			t.Errorf("HELIKON_SLOW_TESTS=%q CI=%q: Size(2, 20) = %d, want %d", tt.flag, tt.ci, got, tt.size)
		}
	}
}
