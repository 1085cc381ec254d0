package bash

import (
	"strings"
	"testing"
)

func TestCapture_KeepsHeadAndTailAndElidesTheMiddle(t *testing.T) {
	cases := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"under the limit", 10, []string{"abc", "de"}, "abcde"},
		{"exactly the limit", 10, []string{"0123456789"}, "0123456789"},
		{"one big write", 4, []string{"abcdefgh"}, "ab\n[… 4 bytes elided …]\ngh"},
		{"many small writes wrap the ring", 6, []string{"abc", "def", "ghi", "jkl"}, "abc\n[… 6 bytes elided …]\njkl"},
		{"byte by byte", 4, strings.Split("abcdefg", ""), "ab\n[… 3 bytes elided …]\nfg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newCapture(c.limit)
			for _, s := range c.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := w.String(); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
