package shellsyntax

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/paigasus/helikon/internal/shellstmt"
)

// literal unquotes w. Its text is exact when every part is a literal or a
// quoted literal; otherwise parameters keep a loose $NAME form and other
// expansions become "$?", so a loose word never reads as a harmless path.
// It also notes unquoted glob and brace-expansion characters, which the
// shell expands after the matcher has looked.
func literal(w *syntax.Word) shellstmt.Word {
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			out := shellstmt.Word{Text: l.Value, Lit: true}
			out.Glob, out.Brace = patternChars(l.Value)
			return out
		}
	}
	var b strings.Builder
	st := litState{lit: true}
	for _, p := range w.Parts {
		st.appendPart(&b, p, false)
	}
	out := shellstmt.Word{Text: b.String(), Lit: st.lit && !st.home, Home: st.lit && st.home, Glob: st.glob}
	out.Brace = st.braceOpen && st.braceSep && st.braceClose
	return out
}

// litState accumulates what the parts of one word say about it.
type litState struct {
	lit, home, glob                 bool
	braceOpen, braceSep, braceClose bool
}

// appendPart writes the unquoted text of p.
func (st *litState) appendPart(b *strings.Builder, p syntax.WordPart, inDouble bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		if !inDouble {
			g, _ := patternChars(p.Value)
			st.glob = st.glob || g
			st.braceShape(p.Value)
		}
		unescape(b, p.Value, inDouble)
	case *syntax.SglQuoted:
		if p.Dollar {
			ansiC(b, p.Value)
		} else {
			b.WriteString(p.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			st.appendPart(b, q, true)
		}
	case *syntax.ParamExp:
		simple := p.Param != nil && !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0
		if simple && p.Param.Value == "HOME" && (p.Exp == nil || p.Exp.Op == syntax.ErrorUnset || p.Exp.Op == syntax.ErrorUnsetOrNull) {
			// "${HOME:?}" is $HOME or no command at all.
			st.home = true
			b.WriteString("$HOME")
			return
		}
		st.lit = false
		if simple && p.Exp == nil {
			b.WriteByte('$')
			b.WriteString(p.Param.Value)
			return
		}
		b.WriteString("$?")
	case *syntax.ExtGlob:
		st.glob = true
		st.lit = false
		b.WriteString(p.Op.String())
		b.WriteString(p.Pattern.Value)
		b.WriteByte(')')
	default:
		st.lit = false
		b.WriteString("$?")
	}
}

// braceShape notes the unescaped characters of a brace expansion.
func (st *litState) braceShape(s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			st.braceOpen = true
		case ',':
			st.braceSep = st.braceSep || st.braceOpen
		case '.':
			st.braceSep = st.braceSep || (st.braceOpen && i+1 < len(s) && s[i+1] == '.')
		case '}':
			st.braceClose = st.braceClose || st.braceSep
		}
	}
}

// patternChars reports whether an unquoted literal holds unescaped glob
// characters and the shape of a brace expansion.
func patternChars(s string) (glob, brace bool) {
	var st litState
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			glob = true
		}
	}
	st.braceShape(s)
	return glob, st.braceOpen && st.braceSep && st.braceClose
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
