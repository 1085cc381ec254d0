package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// maxLinkHops bounds the symlinks one path may pass through, as Linux's
// MAXSYMLINKS (40) does: past it the walk calls the path a loop.
const maxLinkHops = 40

// resolve follows every symlink in rel, a path [Sandbox.clean] returned,
// one component at a time through the root, and returns the
// slash-separated path inside the root it names. Components past the
// first that does not exist are joined as written (a file Write will
// create). It fails when it cannot decide: a symlink loop, a link leading
// outside the root, or an error other than "does not exist". The governance
// rules see the result, so a link "g -> .git" cannot carry a write past a
// guard on ".git/**".
func (s *Sandbox) resolve(rel string) (string, error) { return s.walk(rel, false) }

// maxGlobEntries bounds the directory a glob component is matched in.
const maxGlobEntries = 4096

// walk is resolve; with globs, a component holding glob characters (a
// shell operand) ends the walk, after checking that it matches no symlink
// of its directory: the shell would follow it where the rules cannot.
func (s *Sandbox) walk(rel string, globs bool) (string, error) {
	if !(globs && strings.ContainsAny(rel, "*?[")) && s.noLinks(rel) {
		return rel, nil
	}
	return s.walkLinks(rel, globs)
}

// walkLinks is walk a component at a time: an Lstat of each prefix, and
// the links' targets read and walked in turn.
func (s *Sandbox) walkLinks(rel string, globs bool) (string, error) {
	todo := strings.Split(rel, "/")
	var cur []string
	hops := 0
	missing := false
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", errors.New("a symlink leads outside the sandbox")
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := path.Join(append(cur, c)...)
		if globs && !missing && strings.ContainsAny(c, "*?[") {
			if err := s.checkGlob(path.Join(append(cur, ".")...), c); err != nil {
				return "", err
			}
			missing = true
		}
		if missing {
			cur = append(cur, c)
			continue
		}
		fi, err := s.root.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			missing = true
			cur = append(cur, c)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot resolve %s: %w", next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = append(cur, c)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", fmt.Errorf("more than %d symlinks (a loop?) at %s", maxLinkHops, next)
		}
		target, err := s.root.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("cannot read symlink %s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(s.dir, filepath.Clean(target))
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return "", fmt.Errorf("symlink %s leads outside the sandbox", next)
			}
			target = r
			cur = cur[:0]
		}
		t := strings.Split(filepath.ToSlash(target), "/")
		if len(t)+len(todo) > MaxPathBytes {
			return "", fmt.Errorf("symlink %s expands past %d components", next, MaxPathBytes)
		}
		todo = append(t, todo...)
	}
	if len(cur) == 0 {
		return ".", nil
	}
	return path.Join(cur...), nil
}

// ResolvePath returns where p, a path relative to the sandbox directory
// or absolute, leads with every symlink in it followed: slash-separated
// and relative to the directory when it lies inside it, p cleaned when it
// lies outside (lexically: absolute elsewhere, or climbing out with ..).
// Components past the first that does not exist are kept as written, and
// so are a component holding glob characters and those after it, once the
// glob is found to match no symlink of its directory. It fails when it
// cannot decide: a symlink loop, a link leading outside the directory, a
// glob matching a symlink, an error other than "does not exist". It
// implements
// [governance.PathResolver] for tools whose commands run in the sandbox
// directory (tools/bash), so the rules follow links in their paths as
// they do in the file tools'.
func (s *Sandbox) ResolvePath(p string) (string, error) {
	if p == "" || len(p) > MaxPathBytes || strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("cannot resolve a path of %d bytes", len(p))
	}
	if path.IsAbs(p) {
		rel, err := filepath.Rel(s.dir, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return path.Clean(p), nil
		}
		p = filepath.ToSlash(rel)
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") {
		return c, nil
	}
	return s.walk(c, true)
}

// checkGlob fails when pattern, a glob component, matches a symlink in dir.
func (s *Sandbox) checkGlob(dir, pattern string) error {
	f, err := s.root.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot list %s: %w", dir, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(maxGlobEntries + 1)
	if err != nil && len(entries) == 0 && !errors.Is(err, io.EOF) {
		return fmt.Errorf("cannot list %s: %w", dir, err)
	}
	if len(entries) > maxGlobEntries {
		return fmt.Errorf("the glob %s is matched in a directory of more than %d entries", pattern, maxGlobEntries)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if ok, _ := path.Match(pattern, e.Name()); ok {
			return fmt.Errorf("the glob %s matches the symlink %s", pattern, path.Join(dir, e.Name()))
		}
	}
	return nil
}
