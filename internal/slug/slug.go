// Package slug turns agent names into the identifiers tool names and agent
// cards use.
package slug

import "strings"

// Make lower-cases name and collapses every run of characters other than
// ASCII letters and digits to one underscore: "investing specialist" →
// "investing_specialist".
func Make(name string) string {
	var b strings.Builder
	pendingSep := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if pendingSep && b.Len() > 0 {
				b.WriteByte('_')
			}
			pendingSep = false
			b.WriteRune(r)
		} else {
			pendingSep = true
		}
	}
	if pendingSep && b.Len() == 0 {
		return "_"
	}
	return b.String()
}
