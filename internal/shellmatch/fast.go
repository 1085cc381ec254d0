package shellmatch

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// fastCommand is one simple command split without the parser.
type fastCommand struct {
	words  []word
	writes []string
}

// plain marks the bytes that are literal in an unquoted Bash word. Glob
// characters count: the parser keeps them literal too.
var plain = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-_./:=,@+%^~*?" {
		t[c] = true
	}
	return t
}()

// reserved are the words that make a command more than a simple command
// when they come first.
var reserved = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
		"case": true, "esac": true, "while": true, "until": true, "for": true, "in": true,
		"function": true, "select": true, "time": true, "coproc": true, "[[": true, "]]": true,
		// The parser reads these as arithmetic and declarations.
		"let": true, "nameref": true,
	}
})

// fastSplit splits the common shape of command string without the parser:
// plain and simply quoted words, the list and pipe operators, and
// redirections to plain words. It reports false for anything else ($,
// backticks, backslashes, parentheses, braces, comments, heredocs, …),
// which the parser then handles; where it answers, it answers as the parser
// would (a fuzz test holds it to that).
func fastSplit(src string) ([]fastCommand, bool) {
	if !utf8.ValidString(src) {
		return nil, false
	}
	for i := 0; i < len(src); i++ {
		if c := src[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return nil, false // control bytes: the parser's business
		}
	}
	ops, seps := 1, 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ';', '&', '|', '\n':
			ops++
			seps++
		case ' ', '\t', '>', '<', '\'', '"':
			seps++
		}
	}
	// One backing array for every command's words: a word starts at the
	// beginning or after a blank, an operator or a quote.
	all := make([]word, 0, seps)
	wstart := 0
	var (
		cmds  = make([]fastCommand, 0, ops)
		cur   fastCommand
		b     []byte
		start = -1 // start of the current unquoted run, -1 when b holds the word
		in    bool // inside a word
		quote bool // the current word has quotes
		glob  bool // the current word has unquoted glob characters
		ended bool // an operator ended the last command and needs one after it
	)
	endWord := func(end int) {
		if !in {
			return
		}
		var text string
		if start >= 0 && !quote {
			text = src[start:end]
		} else {
			text = string(b)
		}
		all = append(all, word{text: text, lit: true, glob: glob})
		cur.words = all[wstart:len(all):len(all)]
		in, quote, glob, start, b = false, false, false, -1, b[:0]
	}
	endCommand := func() bool {
		if len(cur.words) == 0 && len(cur.writes) == 0 {
			return false
		}
		if first := cur.words; len(first) > 0 && (reserved()[first[0].text] || isAssignment(first[0].text)) {
			return false
		}
		cmds = append(cmds, cur)
		cur = fastCommand{}
		wstart = len(all)
		return true
	}
	// readTarget reads the plain or quoted word a redirection names.
	readTarget := func(i int) (string, int, bool) {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
		var t []byte
		n := 0
		for i < len(src) {
			c := src[i]
			switch {
			case plain[c]:
				t = append(t, c)
			case c == '\'':
				j := strings.IndexByte(src[i+1:], '\'')
				if j < 0 || substText(src[i+1:i+1+j]) {
					return "", 0, false
				}
				t = append(t, src[i+1:i+1+j]...)
				i += j + 1
			case c == '"':
				j := strings.IndexByte(src[i+1:], '"')
				if j < 0 || strings.ContainsAny(src[i+1:i+1+j], "$`\\!") {
					return "", 0, false
				}
				t = append(t, src[i+1:i+1+j]...)
				i += j + 1
			default:
				if n == 0 {
					return "", 0, false
				}
				return string(t), i, true
			}
			n++
			i++
		}
		if n == 0 {
			return "", 0, false
		}
		return string(t), i, true
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case plain[c]:
			if !in {
				in, start = true, i
			} else if start < 0 || quote {
				b = append(b, c)
			}
			glob = glob || c == '*' || c == '?'
			ended = false
			continue
		case c == ' ' || c == '\t':
			endWord(i)
			continue
		case c == '\'' || c == '"':
			j := strings.IndexByte(src[i+1:], c)
			if j < 0 {
				return nil, false
			}
			body := src[i+1 : i+1+j]
			if c == '"' && strings.ContainsAny(body, "$`\\!") || substText(body) {
				return nil, false
			}
			if in && !quote && start >= 0 {
				b = append(b[:0], src[start:i]...)
			}
			in, quote = true, true
			b = append(b, body...)
			i += j + 1
			ended = false
			continue
		case c == '>' || (c == '&' && i+1 < len(src) && src[i+1] == '>'):
			// An all-digit word right before > is the descriptor.
			if in && !quote && start >= 0 && isDigits(src[start:i]) && c == '>' {
				in, start = false, -1
			} else {
				endWord(i)
			}
			op := i
			if c == '&' {
				i++
			}
			i++
			dup := false
			if i < len(src) && (src[i] == '>' || src[i] == '|') {
				i++
			} else if i < len(src) && src[i] == '&' && src[op] == '>' {
				dup = true
				i++
			}
			t, next, ok := readTarget(i)
			if !ok {
				return nil, false
			}
			if !dup || !(t == "-" || isDigits(t)) {
				cur.writes = append(cur.writes, t)
			}
			i = next - 1
			ended = false
			continue
		case c == '<':
			if in && !quote && start >= 0 && isDigits(src[start:i]) {
				in, start = false, -1
			} else {
				endWord(i)
			}
			if i+1 < len(src) && strings.IndexByte("<>&(", src[i+1]) >= 0 {
				return nil, false
			}
			_, next, ok := readTarget(i + 1)
			if !ok {
				return nil, false
			}
			i = next - 1
			ended = false
			continue
		case c == ';' || c == '\n' || c == '&' || c == '|':
			endWord(i)
			if !endCommand() {
				return nil, false
			}
			ended = c != ';' && c != '\n'
			if i+1 < len(src) && ((c == '&' && src[i+1] == '&') || (c == '|' && (src[i+1] == '|' || src[i+1] == '&'))) {
				i++
				ended = true
			} else if c == '&' {
				ended = false // a trailing & only backgrounds
			}
			continue
		}
		return nil, false
	}
	endWord(len(src))
	if len(cur.words) > 0 || len(cur.writes) > 0 {
		if !endCommand() {
			return nil, false
		}
	} else if ended {
		return nil, false
	}
	return cmds, true
}

// substText reports whether quoted text holds a command substitution's
// shape, which the parser checks for code a subscript would run later.
func substText(s string) bool {
	return strings.IndexByte(s, '`') >= 0 || strings.Contains(s, "$(")
}

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
	cacheMaxBytes = 1024 // longer strings are rare and would bloat the cache
)

var cache = &scriptCache{m: make(map[string]*Script)}

// ResetCache forgets every resolved script. A test that swaps
// shellstmt.Parser calls it, since a script resolved with one parser is
// cached for a program that has no other.
func ResetCache() {
	cache.mu.Lock()
	clear(cache.m)
	cache.mu.Unlock()
}

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
