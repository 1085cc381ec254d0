package shellmatch

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// literal unquotes w. Its text is exact when every part is a literal or a
// quoted literal; otherwise parameters keep a loose $NAME form and other
// expansions are dropped.
func literal(w *syntax.Word) word {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			return word{text: l.Value, lit: true}
		}
	}
	var b strings.Builder
	lit := true
	for _, p := range w.Parts {
		lit = appendPart(&b, p, false) && lit
	}
	return word{text: b.String(), lit: lit}
}

// appendPart writes the unquoted text of p and reports whether it is exact.
func appendPart(b *strings.Builder, p syntax.WordPart, inDouble bool) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		unescape(b, p.Value, inDouble)
		return true
	case *syntax.SglQuoted:
		if p.Dollar {
			ansiC(b, p.Value)
		} else {
			b.WriteString(p.Value)
		}
		return true
	case *syntax.DblQuoted:
		lit := true
		for _, q := range p.Parts {
			lit = appendPart(b, q, true) && lit
		}
		return lit
	case *syntax.ParamExp:
		if p.Param != nil && !p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil {
			b.WriteByte('$')
			b.WriteString(p.Param.Value)
		}
		return false
	}
	return false
}

// unescape removes the backslashes the shell removes: any outside double
// quotes, and before $ ` " \ and newline inside them.
func unescape(b *strings.Builder, s string, inDouble bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !inDouble || n == '$' || n == '`' || n == '"' || n == '\\':
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// ansiC decodes the escapes of a $'…' string.
func ansiC(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch n := s[i]; n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			max := 2
			if n == 'u' {
				max = 4
			} else if n == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(n)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if n == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			if n >= '0' && n <= '7' {
				j := i
				for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				v, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(v))
				i = j - 1
				continue
			}
			// \\ \' \" \? decode to themselves; unknown escapes keep the backslash.
			if n != '\\' && n != '\'' && n != '"' && n != '?' {
				b.WriteByte('\\')
			}
			b.WriteByte(n)
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
