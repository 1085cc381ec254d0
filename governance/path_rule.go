package governance

import (
	"path"
	"strings"
	"unicode/utf8"
)

// pathGlob is a gitignore-style pattern for the path argument of the Read,
// Write and Edit tools, matched lexically and case-insensitively.
//
// A pattern without a "/" matches a path component at any depth (".env",
// "*.pem"); a pattern with one is anchored to the tools' root ("src/**", and
// "/src/**" means the same, as in .gitignore). A pattern that matches a
// directory matches everything beneath it. "**" matches any number of
// components; a trailing "/**" at least one. A pattern starting with "//" is
// anchored to the filesystem root instead ("//etc/**").
type pathGlob struct {
	raw      string
	parts    []string
	anchored bool
	absolute bool
}

func compileGlob(pattern string) *pathGlob {
	g := &pathGlob{raw: pattern}
	p := strings.ToLower(pattern)
	if strings.HasPrefix(p, "//") {
		g.absolute, g.anchored = true, true
		p = p[2:]
	}
	p = strings.TrimSuffix(p, "/")
	if strings.Contains(p, "/") {
		g.anchored = true
	}
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if p != "" {
		g.parts = strings.Split(p, "/")
	}
	return g
}

// pathWhere says where a lexically cleaned path lies.
type pathWhere int

const (
	pathInRoot  pathWhere = iota // relative, inside the tools' root
	pathOutside                  // relative, climbing out with ..
	pathAbs                      // absolute
)

// splitPath cleans p lexically (collapsing ..) and lower-cases it.
func splitPath(p string) ([]string, pathWhere) {
	p = path.Clean(strings.ToLower(p))
	where := pathInRoot
	switch {
	case strings.HasPrefix(p, "/"):
		where = pathAbs
		p = p[1:]
	case p == ".." || strings.HasPrefix(p, "../"):
		where = pathOutside
	case p == ".":
		p = ""
	}
	if p == "" {
		return nil, where
	}
	return strings.Split(p, "/"), where
}

// match reports whether the glob matches p. failClosed says how to treat a
// path whose place relative to the root is unknown (absolute, or climbing
// out): a deny rule matches an anchored pattern at any depth there, an
// allow rule never does.
func (g *pathGlob) match(p string, failClosed bool) bool {
	parts, where := splitPath(p)
	if !g.anchored {
		for _, c := range parts {
			if len(g.parts) == 1 && matchComponent(g.parts[0], c) {
				return true
			}
		}
		return false
	}
	if g.absolute {
		return where == pathAbs && matchParts(g.parts, parts)
	}
	if where == pathInRoot {
		return matchParts(g.parts, parts)
	}
	if !failClosed {
		return false
	}
	for i := range parts {
		if matchParts(g.parts, parts[i:]) {
			return true
		}
	}
	return false
}

// matchBeneath reports whether an anchored glob could match a path
// beneath p, which a write to p may reach when p is a directory (rm -rf
// src under "src/**"). Unanchored patterns ("*.pem") are left to the
// written paths themselves: any directory may hold such a file.
func (g *pathGlob) matchBeneath(p string) bool {
	if !g.anchored {
		return false
	}
	parts, where := splitPath(p)
	switch {
	case g.absolute:
		return where == pathAbs && partsBeneath(g.parts, parts)
	case where == pathInRoot:
		return partsBeneath(g.parts, parts)
	}
	for i := range parts {
		if partsBeneath(g.parts, parts[i:]) {
			return true
		}
	}
	return false
}

// partsBeneath reports whether pat could match parts followed by at least
// one more component.
func partsBeneath(pat, parts []string) bool {
	for len(parts) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if !matchComponent(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(pat) > 0
}

// matchParts matches pattern components against a path's leading
// components; the rest of the path lies beneath what matched.
func matchParts(pat, parts []string) bool {
	if len(pat) == 0 {
		return true
	}
	if pat[0] == "**" {
		if len(pat) == 1 {
			return len(parts) > 0
		}
		for i := 0; i <= len(parts); i++ {
			if matchParts(pat[1:], parts[i:]) {
				return true
			}
		}
		return false
	}
	return len(parts) > 0 && matchComponent(pat[0], parts[0]) && matchParts(pat[1:], parts[1:])
}

// matchComponent matches one path component against a glob with *, ?,
// [classes] (negated with ! or ^) and \ escapes. A malformed class matches
// its "[" literally, so every pattern is valid.
func matchComponent(pat, s string) bool {
	// Backtracking over the last *: on a mismatch, let it eat one more rune.
	starPat, starS := -1, 0
	pi, si := 0, 0
	for si < len(s) {
		if pi < len(pat) {
			switch pat[pi] {
			case '*':
				starPat, starS = pi, si
				pi++
				continue
			case '?':
				_, n := utf8.DecodeRuneInString(s[si:])
				pi, si = pi+1, si+n
				continue
			case '[':
				r, n := utf8.DecodeRuneInString(s[si:])
				if ok, end := matchClass(pat[pi:], r); end > 0 {
					if ok {
						pi, si = pi+end, si+n
						continue
					}
					break
				}
				if s[si] == '[' {
					pi, si = pi+1, si+1
					continue
				}
			case '\\':
				if pi+1 < len(pat) && pat[pi+1] == s[si] {
					pi, si = pi+2, si+1
					continue
				}
			default:
				if pat[pi] == s[si] {
					pi, si = pi+1, si+1
					continue
				}
			}
		}
		if starPat < 0 {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		pi, si = starPat+1, starS
	}
	for pi < len(pat) && pat[pi] == '*' {
		pi++
	}
	return pi == len(pat)
}

// matchClass matches r against the class opening pat. end is the length of
// the class, 0 when it is not closed.
func matchClass(pat string, r rune) (ok bool, end int) {
	i := 1
	negate := i < len(pat) && (pat[i] == '!' || pat[i] == '^')
	if negate {
		i++
	}
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return ok != negate, i + 1
		}
		first = false
		lo, n := utf8.DecodeRuneInString(pat[i:])
		i += n
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			hi, n = utf8.DecodeRuneInString(pat[i+1:])
			i += 1 + n
		}
		if lo <= r && r <= hi {
			ok = true
		}
	}
	return false, 0
}
