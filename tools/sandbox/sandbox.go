package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/paigasus/helikon"
)

// MaxPathBytes bounds a path the tools accept, as Linux's PATH_MAX does
// for one system call.
const MaxPathBytes = 4096

// Sandbox is a directory opened as a capability: every file operation the
// tools make goes through an [os.Root], which refuses to resolve a path
// outside it. A Sandbox is safe for concurrent use.
type Sandbox struct {
	root *os.Root
	dir  string
	// escape is the error os.Root wraps when a path leaves the root. The
	// standard library does not export it, so Open learns it by asking.
	escape error
	// dirf is the root's directory, opened through it, from which
	// noLinks resolves a path in one system call (nil: not used here).
	dirf *os.File
}

// Open opens dir as a Sandbox. dir must exist and be a directory.
func Open(dir string) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("sandbox: open root: %w", err)
	}
	_, probe := root.Stat("..")
	var pe *fs.PathError
	if !errors.As(probe, &pe) {
		root.Close()
		return nil, fmt.Errorf("sandbox: os.Root did not refuse \"..\" (%v); refusing to run unconfined", probe)
	}
	return &Sandbox{root: root, dir: abs, escape: pe.Err, dirf: openDirHandle(root)}, nil
}

// Dir returns the absolute path of the sandbox directory.
func (s *Sandbox) Dir() string { return s.dir }

// Root returns the [os.Root] the sandbox resolves paths through.
func (s *Sandbox) Root() *os.Root { return s.root }

// Close releases the directory. Tools built on s fail afterwards.
func (s *Sandbox) Close() error {
	if s.dirf != nil {
		s.dirf.Close()
	}
	return s.root.Close()
}

// Tools returns Read, Write, Edit and MultiEdit on s with default options.
func (s *Sandbox) Tools() ([]helikon.Tool, error) {
	r, err := NewRead(s)
	if err != nil {
		return nil, err
	}
	w, err := NewWrite(s)
	if err != nil {
		return nil, err
	}
	e, err := NewEdit(s)
	if err != nil {
		return nil, err
	}
	m, err := NewMultiEdit(s)
	if err != nil {
		return nil, err
	}
	return []helikon.Tool{r, w, e, m}, nil
}

// clean turns a path the model sent into a slash-separated path relative
// to the root, or returns a Denied error for one that names a place
// outside it before any lookup is made. Symlinks are left to os.Root.
func (s *Sandbox) clean(tool, p string) (string, error) {
	if p == "" {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{"file_path: empty"}}
	}
	if len(p) > MaxPathBytes {
		// os.Root walks a path a component at a time, so the kernel's
		// PATH_MAX would not stop it: thousands of nested directories.
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{fmt.Sprintf("file_path: %d bytes, at most %d", len(p), MaxPathBytes)}}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", denied(tool, p, "the path holds a NUL byte")
	}
	if filepath.IsAbs(p) || path.IsAbs(p) {
		// An absolute path naming a place inside the root is still a
		// path the model computed from outside knowledge; accept it
		// only when it lies lexically under the root.
		rel, err := filepath.Rel(s.dir, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", denied(tool, p, "an absolute path outside the sandbox")
		}
		p = rel
	}
	c := path.Clean(filepath.ToSlash(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", denied(tool, p, "the path climbs out of the sandbox")
	}
	return c, nil
}

// fail maps an error from os.Root to a ToolError: an escape is Denied,
// anything else Failed.
func (s *Sandbox) fail(tool, p string, err error) error {
	if errors.Is(err, s.escape) {
		return denied(tool, p, "the path resolves outside the sandbox (through a symlink or ..)")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: fmt.Errorf("%w: %s", err, p)}
}

// denied and failed put the path last: "passwd: …" would read as a
// secret-named key to the output redactor.
func denied(tool, p, why string) error {
	return &helikon.ToolError{Kind: helikon.ToolDenied, Tool: tool, Reason: fmt.Sprintf("%s: %s", why, p)}
}

func failed(tool, p, msg string) error {
	return &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: fmt.Errorf("%s: %s", msg, p)}
}
