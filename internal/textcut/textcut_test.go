package textcut_test

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/textcut"
)

func TestPrefix(t *testing.T) {
	for _, tt := range []struct {
		name, s string
		n       int
		want    string
		cut     bool
	}{
		{"short", "abc", 3, "abc", false},
		{"ascii", "abcdef", 4, "abcd", true},
		{"before a two-byte character", "abé", 3, "ab", true},
		{"after a two-byte character", "abéc", 4, "abé", true},
		{"inside a four-byte character", "a😀b", 3, "a", true},
		{"only continuation bytes", strings.Repeat("\x80", 10), 4, strings.Repeat("\x80", 4), true},
		{"zero budget", "abc", 0, "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := textcut.Prefix(tt.s, tt.n)
			if got != tt.want || cut != tt.cut {
				t.Errorf("Prefix(%q, %d) = %q, %v; want %q, %v", tt.s, tt.n, got, cut, tt.want, tt.cut)
			}
			b, bcut := textcut.Prefix([]byte(tt.s), tt.n)
			if string(b) != tt.want || bcut != tt.cut {
				t.Errorf("Prefix([]byte(%q), %d) = %q, %v", tt.s, tt.n, b, bcut)
			}
		})
	}
}
