// Package jsonscan reads single fields out of small JSON objects without
// decoding the whole object: the fast path the provider adapters take for
// the text and argument deltas that make up nearly all of a model stream.
// encoding/json costs eight or more allocations per delta event; a field
// read here costs none, and the decoded string one.
//
// The functions expect well-formed JSON (the caller falls back to
// encoding/json whenever a read reports !ok) and never panic on any input.
package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Field returns the raw value of key in the JSON object obj, or nil when
// obj is not an object or has no such key. Only the top level is searched;
// nested objects and arrays are skipped whole.
func Field(obj []byte, key string) []byte {
	var found []byte
	Each(obj, func(k, v []byte) bool {
		if string(k) == key {
			found = v
			return false
		}
		return true
	})
	return found
}

// Each calls fn with the raw key (without quotes) and raw value of each
// top-level member of the JSON object obj, in order, until fn returns
// false. It reports whether obj was read to its end (or fn stopped) without
// finding malformed JSON.
func Each(obj []byte, fn func(key, value []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return true
	}
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return false
		}
		kEnd := skipString(obj, i)
		if kEnd < 0 {
			return false
		}
		k := obj[i+1 : kEnd-1]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		vEnd := skipValue(obj, i)
		if vEnd < 0 {
			return false
		}
		if !fn(k, obj[i:vEnd]) {
			return true
		}
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == '}' {
			return true
		}
		if i >= len(obj) || obj[i] != ',' {
			return false
		}
		i++
	}
}

// FirstElem returns the first element of the JSON array arr and whether the
// array has exactly one element.
func FirstElem(arr []byte) (elem []byte, only bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false
	}
	i = skipSpace(arr, i+1)
	if i >= len(arr) || arr[i] == ']' {
		return nil, false
	}
	end := skipValue(arr, i)
	if end < 0 {
		return nil, false
	}
	j := skipSpace(arr, end)
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
			if c < 0x20 {
				return buf, false
			}
			j := i + 1
			for j < len(v) && v[j] != '\\' {
				j++
			}
			// encoding/json replaces invalid UTF-8; leave that to it.
			if !utf8.Valid(v[i:j]) {
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

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] ('"'),
// or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skipString(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
