package shellmatch

import (
	"fmt"
	"strings"
)

// MaxLen bounds the command strings the matcher parses. A longer string is
// not parsed at all and is reported Unresolved: the parser's cost and
// memory grow with the input, and rules fail closed on what it did not
// read.
const MaxLen = 64 << 10

// MaxNesting bounds how deeply a command string may nest parentheses,
// braces, substitutions, compound commands and quotes before it is parsed.
// The parser recurses once per level; a few hundred thousand levels
// overflow the goroutine stack, a fatal error no recover catches.
const MaxNesting = 100

// MaxExpansions bounds the substitutions ($(…), `…`, <(…), >(…)) and the
// operators inside arithmetic a command string may hold: the parser's
// cost per byte is highest for these, and grows faster than the input for
// long arithmetic.
const MaxExpansions = 256

// checkBounds returns why src is past the bounds, or "". It scans src once
// with a small stack of the contexts the parser would open: quotes,
// substitutions, groups and compound commands. A closer pops only the
// context it closes, so text inside quotes cannot hide depth; anything the
// scanner does not understand (heredoc bodies, comments) can only add
// depth, which makes a strange command unresolved, never crash.
func checkBounds(src string) string {
	if len(src) > MaxLen {
		return fmt.Sprintf("a command of %d bytes, past the %d the matcher reads", len(src), MaxLen)
	}
	var stack [MaxNesting + 1]byte
	n := 0
	tooDeep := false
	push := func(k byte) {
		if n == len(stack) {
			tooDeep = true
			return
		}
		stack[n] = k
		n++
	}
	pop := func(k byte) {
		if n > 0 && stack[n-1] == k {
			n--
		}
	}
	// arith counts the 'A' contexts on the stack: $(( and (( open one.
	arith, expansions := 0, 0
	wordStart := true
	for i := 0; i < len(src) && !tooDeep && expansions <= MaxExpansions; i++ {
		c := src[i]
		if n > 0 && stack[n-1] == '"' {
			switch {
			case c == '\\':
				i++
			case c == '"':
				n--
			case c == '`':
				expansions++
				push('`')
			case c == '$' && i+2 < len(src) && src[i+1] == '(' && src[i+2] == '(':
				i += 2
				arith++
				push('A')
			case c == '$' && i+1 < len(src) && (src[i+1] == '(' || src[i+1] == '{'):
				i++
				if src[i] == '(' {
					expansions++
				}
				push(src[i])
			}
			continue
		}
		if arith > 0 && strings.IndexByte("+-*/%^|&<>=!,?:~", c) >= 0 {
			expansions++
		}
		switch c {
		case '\\':
			i++
		case '\'':
			j := i + 1
			if i > 0 && src[i-1] == '$' {
				for j < len(src) && src[j] != '\'' {
					if src[j] == '\\' {
						j++
					}
					j++
				}
			} else {
				for j < len(src) && src[j] != '\'' {
					j++
				}
			}
			i = j
		case '(':
			switch {
			case i+1 < len(src) && src[i+1] == '(':
				i++
				arith++
				push('A')
			case i > 0 && (src[i-1] == '$' || src[i-1] == '<' || src[i-1] == '>'):
				expansions++
				push('(')
			default:
				push('(')
			}
		case ')':
			if n > 0 && stack[n-1] == 'A' && i+1 < len(src) && src[i+1] == ')' {
				i++
				n--
				arith--
			} else {
				pop('(')
			}
		case '"', '{', '[':
			push(c)
		case '`':
			if n > 0 && stack[n-1] == '`' {
				n--
			} else {
				expansions++
				push('`')
			}
		case '}':
			pop('{')
		case ']':
			pop('[')
		default:
			if wordStart && c >= 'a' && c <= 'w' {
				if open, closes := keywordAt(src, i); open != 0 {
					push(open)
				} else if closes != 0 {
					pop(closes)
				}
			}
		}
		wordStart = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == '{' || c == '!'
	}
	switch {
	case tooDeep:
		return fmt.Sprintf("a command nested more than %d deep", MaxNesting)
	case expansions > MaxExpansions:
		return fmt.Sprintf("a command with more than %d substitutions and arithmetic operators", MaxExpansions)
	}
	return ""
}

// keywordAt returns the compound-command keyword at i: the context an
// opener (if, case, a loop) pushes, or the one a closer (fi, esac, done)
// pops.
func keywordAt(src string, i int) (open, closes byte) {
	for _, kw := range [...]struct {
		w            string
		open, closes byte
	}{{"if", 'I', 0}, {"case", 'C', 0}, {"while", 'W', 0}, {"until", 'W', 0}, {"for", 'W', 0}, {"select", 'W', 0},
		{"fi", 0, 'I'}, {"esac", 0, 'C'}, {"done", 0, 'W'}} {
		if hasWordAt(src, i, kw.w) {
			return kw.open, kw.closes
		}
	}
	return 0, 0
}

// hasWordAt reports whether src holds the word kw at i, followed by a
// blank, an operator or the end.
func hasWordAt(src string, i int, kw string) bool {
	if len(src)-i < len(kw) || src[i:i+len(kw)] != kw {
		return false
	}
	j := i + len(kw)
	if j == len(src) {
		return true
	}
	switch src[j] {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')':
		return true
	}
	return false
}
