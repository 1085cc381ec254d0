package governance

import (
	"bytes"
	"encoding/json"
	"errors"
)

// errArgsUnreadable reports arguments that are not a JSON object.
var errArgsUnreadable = errors.New("arguments are not a JSON object")

// argStrings appends to dst each top-level string member of the object args
// whose key matches key. Keys match case-insensitively and every duplicate is
// kept, because encoding/json decodes {"COMMAND": …} into a field tagged
// "command" and keeps the last of duplicates: a rule must see whatever the
// tool will. A value without escapes is a sub-slice of args.
func argStrings(args []byte, key string, dst [][]byte) ([][]byte, error) {
	i := skipSpace(args, 0)
	if i >= len(args) || args[i] != '{' {
		return dst, errArgsUnreadable
	}
	i = skipSpace(args, i+1)
	if i < len(args) && args[i] == '}' {
		return dst, nil
	}
	for {
		ks, ke, kesc, ok := scanString(args, i)
		if !ok {
			return dst, errArgsUnreadable
		}
		i = skipSpace(args, ke+1)
		if i >= len(args) || args[i] != ':' {
			return dst, errArgsUnreadable
		}
		i = skipSpace(args, i+1)
		keyMatch := keyEqual(args[ks:ke], kesc, key)
		if i < len(args) && args[i] == '"' {
			vs, ve, vesc, ok := scanString(args, i)
			if !ok {
				return dst, errArgsUnreadable
			}
			if keyMatch {
				if !vesc {
					dst = append(dst, args[vs:ve])
				} else {
					var v string
					if json.Unmarshal(args[vs-1:ve+1], &v) != nil {
						return dst, errArgsUnreadable
					}
					dst = append(dst, []byte(v))
				}
			}
			i = ve + 1
		} else {
			end, ok := skipValue(args, i)
			if !ok {
				return dst, errArgsUnreadable
			}
			i = end
		}
		i = skipSpace(args, i)
		if i >= len(args) {
			return dst, errArgsUnreadable
		}
		switch args[i] {
		case ',':
			i = skipSpace(args, i+1)
		case '}':
			return dst, nil
		default:
			return dst, errArgsUnreadable
		}
	}
}

func keyEqual(raw []byte, escaped bool, key string) bool {
	if !escaped {
		return bytes.EqualFold(raw, []byte(key))
	}
	var k string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return json.Unmarshal(quoted, &k) == nil && bytes.EqualFold([]byte(k), []byte(key))
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString scans the string starting at the quote at i and returns the
// bounds of its contents and whether they hold escapes.
func scanString(b []byte, i int) (start, end int, escaped, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, 0, false, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return i + 1, j, escaped, true
		}
	}
	return 0, 0, false, false
}

// skipValue skips a non-string JSON value starting at i: an object or array
// (with nesting and strings) or a bare literal.
func skipValue(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			_, end, _, ok := scanString(b, i)
			if !ok {
				return 0, false
			}
			i = end + 1
			if depth == 0 {
				return i, true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case ',':
			if depth == 0 {
				return i, true
			}
		case ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i, true
			}
		}
		i++
	}
	return i, depth == 0
}
