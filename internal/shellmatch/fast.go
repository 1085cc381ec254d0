package shellmatch

import (
	"strings"
	"sync"
)

// safe marks the bytes that mean nothing special to Bash inside a word, so a
// string made of them and blanks is a single simple command of literal
// words, and splitting on blanks is exactly what the parser would do.
var safe = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-_./:=,@+%^" {
		t[c] = true
	}
	return t
}()

// reserved are the words that make a command string more than a simple
// command when they come first.
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"case": true, "esac": true, "while": true, "until": true, "for": true, "in": true,
	"function": true, "select": true, "time": true, "coproc": true,
}

// fastSplit splits a string of plain words without the parser. It reports
// false when the string needs the parser.
func fastSplit(src string) ([]word, bool) {
	n := 0
	inWord := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == ' ' || c == '\t' {
			inWord = false
			continue
		}
		if !safe[c] {
			return nil, false
		}
		if !inWord {
			n++
			inWord = true
		}
	}
	if n == 0 {
		return nil, true
	}
	words := make([]word, 0, n)
	for f := range strings.FieldsFuncSeq(src, isBlank) {
		words = append(words, word{text: f, lit: true})
	}
	if first := words[0].text; reserved[first] || isAssignment(first) {
		return nil, false
	}
	return words, true
}

func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// tokenize splits a string that did not parse into rough commands: on
// operators, parentheses and backticks, then on blanks, with quotes and
// backslashes dropped. It over-splits rather than under-splits, so every
// program word of the string starts some command.
func tokenize(src string) [][]word {
	var out [][]word
	var cur []word
	var b strings.Builder
	flushWord := func() {
		if b.Len() > 0 && (len(cur) > 0 || !isAssignment(b.String())) {
			cur = append(cur, word{text: b.String(), lit: true})
		}
		b.Reset()
	}
	flushCmd := func() {
		flushWord()
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ';', '&', '|', '\n', '(', ')', '`', '{', '}':
			flushCmd()
		case '$':
			if i+1 < len(src) && src[i+1] == '(' {
				flushCmd()
				i++
			} else {
				b.WriteByte(c)
			}
		case ' ', '\t', '\r':
			flushWord()
		case '\'', '"', '\\':
		default:
			b.WriteByte(c)
		}
	}
	flushCmd()
	return out
}

// scriptCache remembers resolved scripts: agents repeat commands, and a
// parse costs far more than a lookup.
type scriptCache struct {
	mu sync.RWMutex
	m  map[string]*Script
}

const (
	cacheEntries  = 4096
	cacheMaxBytes = 4096 // longer strings are not worth keeping
)

var cache = &scriptCache{m: make(map[string]*Script)}

func (c *scriptCache) get(src string) *Script {
	c.mu.RLock()
	s := c.m[src]
	c.mu.RUnlock()
	return s
}

func (c *scriptCache) getBytes(src []byte) *Script {
	c.mu.RLock()
	s := c.m[string(src)]
	c.mu.RUnlock()
	return s
}

func (c *scriptCache) put(src string, s *Script) {
	if len(src) > cacheMaxBytes {
		return
	}
	c.mu.Lock()
	if len(c.m) >= cacheEntries {
		clear(c.m)
	}
	c.m[src] = s
	c.mu.Unlock()
}

// ParseBytes is [Parse] for a command held in bytes; a cached command costs
// no allocation.
func ParseBytes(src []byte) *Script {
	if s := cache.getBytes(src); s != nil {
		return s
	}
	return Parse(string(src))
}
