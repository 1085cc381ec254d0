package sandbox

import (
	"errors"
	"fmt"
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
func (s *Sandbox) resolve(rel string) (string, error) {
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
