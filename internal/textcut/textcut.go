// Package textcut cuts text to a byte budget without splitting a UTF-8
// character, for the places that bound what they quote, store or send.
package textcut

import "unicode/utf8"

// Prefix returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 character, and whether s was cut. Where no character
// starts within the budget (invalid UTF-8: only continuation bytes up to
// n, or a character wider than n) it cuts at n bytes, so that a caller
// that cuts again from the rest always moves forward.
func Prefix[T ~string | ~[]byte](s T, n int) (T, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut == 0 {
		cut = n
	}
	return s[:cut], true
}
