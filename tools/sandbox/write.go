package sandbox

import (
	"fmt"

	"github.com/paigasus/helikon"
)

// DefaultWriteMaxBytes caps the content one Write or Edit call stores.
const DefaultWriteMaxBytes = 8 << 20

// WriteArgs are the arguments of the Write tool.
type WriteArgs struct {
	FilePath string `json:"file_path" jsonschema:"path of the file, relative to the sandbox root"`
	Content  string `json:"content" jsonschema:"the whole new content of the file"`
}

// Write is the Write tool: it creates or replaces a file inside the
// sandbox, creating parent directories, atomically (temporary file and
// rename).
type Write struct {
	base
	maxBytes int
}

// WriteOption configures [NewWrite], [NewEdit] and [NewMultiEdit].
type WriteOption func(*writeConfig)

type writeConfig struct{ maxBytes int }

// WithWriteMaxBytes caps the size of the file a call may leave (default
// [DefaultWriteMaxBytes]).
func WithWriteMaxBytes(n int) WriteOption { return func(c *writeConfig) { c.maxBytes = n } }

func newWriteConfig(name string, opts []WriteOption) (writeConfig, error) {
	c := writeConfig{maxBytes: DefaultWriteMaxBytes}
	for _, o := range opts {
		o(&c)
	}
	if c.maxBytes <= 0 {
		return c, fmt.Errorf("sandbox: %s: max bytes %d, want more than 0", name, c.maxBytes)
	}
	return c, nil
}

// NewWrite returns the Write tool on sb.
func NewWrite(sb *Sandbox, opts ...WriteOption) (*Write, error) {
	c, err := newWriteConfig("NewWrite", opts)
	if err != nil {
		return nil, err
	}
	w := &Write{maxBytes: c.maxBytes}
	if w.base, err = newBase(sb, "Write", "Create or replace a file inside the sandbox with the given content. Parent directories are created.", true, w.call); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *Write) call(tc *helikon.ToolContext, in WriteArgs) (string, error) {
	const tool = "Write"
	if len(in.Content) > w.maxBytes {
		return "", tooBig(tool, len(in.Content), w.maxBytes)
	}
	p, err := w.sb.clean(tool, in.FilePath)
	if err != nil {
		return "", err
	}
	if err := w.sb.writeAtomic(tool, p, []byte(in.Content)); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), p), nil
}

func tooBig(tool string, n, limit int) error {
	return &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool,
		SchemaErrors: []string{fmt.Sprintf("content of %d bytes, past the %d this tool writes", n, limit)}}
}
