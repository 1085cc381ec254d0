// Package jsonscan reads single fields out of small JSON objects without
// decoding the whole object: the fast path the provider adapters take for
// the text and argument deltas that make up nearly all of a model stream.
// encoding/json costs eight or more allocations per delta event; a field
// read here costs none, and the decoded string one. Its grammar
// ([SkipSpace], [Number]) serves the other one-pass readers too, so that
// JSON's rules are written once.
//
// Every read validates the whole of its input as encoding/json would and
// reports !ok for anything it rejects or might read differently; the caller
// then falls back to encoding/json, so both paths always agree. No input
// makes a function panic.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Object reads the top-level members of the JSON object obj that keys
// names, storing each one's raw value in vals at the name's position (nil
// when absent); len(vals) must be at least keys.Len(), and what it holds
// after a read that reports false is unspecified. It reports false,
// and the caller must then fall back to encoding/json, unless obj is
// exactly one well-formed JSON object, whitespace around it aside, in which
// no listed name repeats and no other key could be taken for a listed one
// by encoding/json (which matches names case-insensitively and after
// unescaping). A read that reports true therefore agrees with what
// encoding/json makes of obj when keys are the fields it decodes into.
func Object(obj []byte, keys *Keys, vals [][]byte) bool {
	return object(obj, keys, vals, false)
}

// Nested is [Object] for a value that an earlier Object, Nested or
// [FirstElem] read returned, and so has validated already: it applies the
// same key rules but skips member values without validating them again.
func Nested(obj []byte, keys *Keys, vals [][]byte) bool {
	return object(obj, keys, vals, true)
}

// object is [Object], or [Nested] when validated: a flag rather than a
// skip function, so the member loop makes no indirect call.
func object(obj []byte, keys *Keys, vals [][]byte, validated bool) bool {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = SkipSpace(obj, i+1)
	var seen uint32
	if i < len(obj) && obj[i] == '}' {
		keys.clearUnseen(vals, seen)
		return SkipSpace(obj, i+1) == len(obj)
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		kEnd, plain := scanString(obj, i)
		if kEnd < 0 {
			return false
		}
		j := keys.index(obj, i+1, kEnd-1, plain)
		i = SkipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = SkipSpace(obj, i+1)
		if i >= len(obj) {
			return false
		}
		// The kinds of value a stream's events hold most, strings and
		// numbers, skipped without skipValue's dispatch.
		var vEnd int
		switch c := obj[i]; {
		case validated:
			vEnd = skipValidated(obj, i)
		case c == '"':
			vEnd = skipString(obj, i)
		case c-'0' <= 9:
			vEnd = skipNumber(obj, i)
		case c == '{' || c == '[':
			vEnd = skipContainer(obj, i, 1, nil)
		default:
			vEnd = skipValue(obj, i, 1, nil)
		}
		if vEnd < 0 || !take(j, obj[i:vEnd], vals, &seen) {
			return false
		}
		i = SkipSpace(obj, vEnd)
		if i >= len(obj) {
			return false
		}
		switch obj[i] {
		case '}':
			keys.clearUnseen(vals, seen)
			return SkipSpace(obj, i+1) == len(obj)
		case ',':
			i = SkipSpace(obj, i+1)
		default:
			return false
		}
	}
}

// plainASCII reports whether k holds neither a '\\' nor a byte outside
// ASCII, eight bytes at a time.
func plainASCII(k []byte) bool {
	i := 0
	for ; i+8 <= len(k); i += 8 {
		x := binary.LittleEndian.Uint64(k[i : i+8])
		e := x ^ ('\\' * ones)
		if (x|(e-ones)&^e)&highs != 0 {
			return false
		}
	}
	for ; i < len(k); i++ {
		if c := k[i]; c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiEqualFold(a []byte, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// FirstElem returns the first element of the JSON array arr and whether the
// array has exactly one element. Like [Nested], it reads a value an earlier
// validating read returned.
func FirstElem(arr []byte) (elem []byte, only bool) {
	i := SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false
	}
	i = SkipSpace(arr, i+1)
	if i >= len(arr) || arr[i] == ']' {
		return nil, false
	}
	end := skipValidated(arr, i)
	if end < 0 {
		return nil, false
	}
	j := SkipSpace(arr, end)
	return arr[i:end], j < len(arr) && arr[j] == ']'
}

// IsNull reports whether a raw value is absent or null.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// Int parses a raw JSON integer.
func Int(v []byte) (int, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// AppendString appends the decoded contents of the raw JSON string v to
// buf. It reports false when v is not a valid JSON string or holds invalid
// UTF-8 (which encoding/json would replace).
func AppendString(buf, v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return buf, false
	}
	v = v[1 : len(v)-1]
	for i := 0; i < len(v); {
		c := v[i]
		if c != '\\' {
			// The plain run, a word at a time while no byte ends it,
			// noting whether any byte is outside ASCII.
			j, high, ended := i, uint64(0), false
			for j+8 <= len(v) {
				x := binary.LittleEndian.Uint64(v[j : j+8])
				if sp := special(x); sp != 0 {
					n := bits.TrailingZeros64(sp) &^ 7 // bits before the ending byte
					high |= x & (1<<n - 1)
					j += n >> 3
					ended = true
					break
				}
				high |= x
				j += 8
			}
			for !ended && j < len(v) && v[j] != '\\' && v[j] != '"' && v[j] >= 0x20 {
				high |= uint64(v[j])
				j++
			}
			if j == i {
				return buf, false // an unescaped quote or control character
			}
			// encoding/json replaces invalid UTF-8; leave that to it.
			if high&highs != 0 && !utf8.Valid(v[i:j]) {
				return buf, false
			}
			buf = append(buf, v[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(v) {
			return buf, false
		}
		switch v[i+1] {
		case '"', '\\', '/':
			buf = append(buf, v[i+1])
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(v, i+2)
			if !ok {
				return buf, false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(v, i+2); ok && i+1 < len(v) && v[i] == '\\' && v[i+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						buf = utf8.AppendRune(buf, dec)
						continue
					}
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			return buf, false
		}
		i += 2
	}
	return buf, true
}

// isHex4 reports whether b holds four hex digits at i: [hex4] without
// the value, small enough to inline, so that the string scan calls nothing
// and keeps its arguments in registers.
func isHex4(b []byte, i int) bool {
	return i >= 0 && i+4 <= len(b) && hexDigit[b[i]] && hexDigit[b[i+1]] && hexDigit[b[i+2]] && hexDigit[b[i+3]]
}

// hexDigit marks the bytes that are hex digits.
var hexDigit = func() (t [256]bool) {
	for _, c := range "0123456789abcdefABCDEF" {
		t[c] = true
	}
	return t
}()

func hex4(v []byte, i int) (rune, bool) {
	if i+4 > len(v) {
		return 0, false
	}
	var r rune
	for _, c := range v[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON whitespace, or len(b).
func SkipSpace(b []byte, i int) int {
	// Most calls land on a token at once: one comparison for that case.
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// maxDepth bounds nesting; deeper input is left to encoding/json.
const maxDepth = 256

// skipString returns the index just past the string starting at b[i] ('"'),
// or -1 when it is not a well-formed JSON string. Invalid UTF-8 is accepted,
// as encoding/json accepts it.
func skipString(b []byte, i int) int {
	end, _ := scanString(b, i)
	return end
}

// scanString is [skipString] that also reports whether the string is plain:
// no escape and no byte outside ASCII, so that encoding/json reads it as
// its bytes and folds its case in ASCII only. The runs between escapes,
// nearly all of a model stream, are passed over eight bytes at a time in
// this one loop (see [special]): no call per run, no second pass for
// control characters, and the word holding the run's last byte gives its
// place, so no byte loop follows but in the last seven bytes of b.
func scanString(b []byte, i int) (end int, plain bool) {
	j, high, escaped := i+1, uint64(0), false
	for {
		if j+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[j : j+8])
			s := special(x)
			if s == 0 {
				high |= x
				j += 8
				continue
			}
			n := bits.TrailingZeros64(s) &^ 7 // the bits of the bytes before it
			high |= x & (1<<n - 1)
			j += n >> 3
		} else {
			for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
				high |= uint64(b[j])
				j++
			}
			if j >= len(b) {
				return -1, false
			}
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, !escaped && high&highs == 0
		case c < 0x20 || j+1 >= len(b):
			return -1, false
		}
		escaped = true
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if !isHex4(b, j+2) {
				return -1, false
			}
			j += 6
		default:
			return -1, false
		}
	}
}

// SWAR ("SIMD within a register") constants: a byte of x is zero exactly
// when x-ones&^x&highs has its high bit set, and below n (n <= 0x80) when
// x-n*ones&^x&highs has; a borrow only ever flags bytes above a byte that
// is flagged rightly, so a nonzero result is exact.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports, nonzero, whether the eight bytes of x hold a '"', a
// '\\' or a control character: a byte that ends a plain run of a JSON
// string. '"' and '\\' are below 0x80, so x^('"'*ones) has the high bits
// of x, and one &^x serves all three tests.
func special(x uint64) uint64 {
	q := x ^ ('"' * ones)
	e := x ^ ('\\' * ones)
	return ((q - ones) | (e - ones) | (x - 0x20*ones)) &^ x & highs
}

// skipValidated returns the index just past the value starting at b[i],
// which a validating read has already accepted: it only matches brackets
// and quotes.
func skipValidated(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = skipValidatedString(b, j)
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the end of a scalar inside its container
			}
			depth--
			if depth == 0 {
				return j + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	if depth == 0 {
		return len(b)
	}
	return -1
}

// skipValidatedString returns the index of the quote closing the validated
// string that opens at b[i], or len(b).
func skipValidatedString(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for n < j-i-1 && b[j-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return j
		}
		j++
	}
}

// skipValue returns the index just past the well-formed JSON value starting
// at b[i], or -1. A non-nil ends records, at the index where each value
// and member name inside starts, the index just past it (see [Document]).
func skipValue(b []byte, i, depth int, ends []int32) int {
	if i >= len(b) {
		return -1
	}
	var end int
	switch b[i] {
	case '"':
		end = skipString(b, i)
	case '{', '[':
		if depth > maxDepth {
			return -1
		}
		end = skipContainer(b, i, depth, ends)
	case 't':
		end = skipLiteral(b, i, "true")
	case 'f':
		end = skipLiteral(b, i, "false")
	case 'n':
		end = skipLiteral(b, i, "null")
	default:
		end = skipNumber(b, i)
	}
	if ends != nil && end > i {
		ends[i] = int32(end)
	}
	return end
}

// skipContainer skips the object or array starting at b[i].
func skipContainer(b []byte, i, depth int, ends []int32) int {
	object := b[i] == '{'
	closing := byte(']')
	if object {
		closing = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1
	}
	for {
		if object {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			k := i
			if i = skipString(b, i); i < 0 {
				return -1
			}
			if ends != nil {
				ends[k] = int32(i)
			}
			if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = SkipSpace(b, i+1)
		}
		if i = skipValue(b, i, depth+1, ends); i < 0 {
			return -1
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case closing:
			return i + 1
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return -1
		}
	}
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// Number reports whether b is exactly one JSON number, and whether it is
// integral (no fraction, no exponent).
func Number(b []byte) (integral, ok bool) {
	if skipNumber(b, 0) != len(b) {
		return false, false
	}
	for _, c := range b {
		if c == '.' || c|0x20 == 'e' {
			return false, true
		}
	}
	return true, true
}

// skipNumber skips -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func skipNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
