package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/paigasus/helikon"
)

// The Read tool's defaults.
const (
	// DefaultReadLimit is how many lines Read returns when the call gives
	// no limit.
	DefaultReadLimit = 2000
	// DefaultReadMaxBytes caps the text one Read call returns.
	DefaultReadMaxBytes = 256 << 10
	// sniffLen is how much of a file is looked at to call it binary.
	sniffLen = 8 << 10
)

// ReadArgs are the arguments of the Read tool.
type ReadArgs struct {
	FilePath string `json:"file_path" jsonschema:"path of the file, relative to the sandbox root"`
	Offset   int    `json:"offset,omitempty" jsonschema:"first line to return, counting from 1 (default 1)"`
	Limit    int    `json:"limit,omitempty" jsonschema:"most lines to return (default 2000)"`
}

// Read is the Read tool: it returns a text file's lines, numbered, from
// an offset, up to a line limit and a byte cap. A binary file is reported
// as such, not dumped.
type Read struct {
	base
	maxBytes int
}

// ReadOption configures [NewRead].
type ReadOption func(*Read)

// WithReadMaxBytes caps the text one call returns (default
// [DefaultReadMaxBytes]); the rest is cut with a marker saying where to
// continue.
func WithReadMaxBytes(n int) ReadOption { return func(r *Read) { r.maxBytes = n } }

// NewRead returns the Read tool on sb.
func NewRead(sb *Sandbox, opts ...ReadOption) (*Read, error) {
	r := &Read{maxBytes: DefaultReadMaxBytes}
	for _, o := range opts {
		o(r)
	}
	if r.maxBytes < 64 {
		return nil, fmt.Errorf("sandbox: NewRead: max bytes %d, want at least 64", r.maxBytes)
	}
	var err error
	if r.base, err = newBase(sb, "Read", "Read a text file inside the sandbox. Lines come numbered (number, tab, text). Use offset and limit for long files.", false, r.call); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Read) call(tc *helikon.ToolContext, in ReadArgs) (helikon.ToolOutput, error) {
	s, err := r.read(in)
	if err != nil {
		return helikon.ToolOutput{}, err
	}
	return helikon.TextOutput(s), nil
}

// read does the work of one call; the benchmarks call it directly.
func (r *Read) read(in ReadArgs) (string, error) {
	const tool = "Read"
	if in.Offset < 0 || in.Limit < 0 {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{"offset and limit must not be negative"}}
	}
	p, err := r.sb.clean(tool, in.FilePath)
	if err != nil {
		return "", err
	}
	f, fi, err := r.sb.openRegular(tool, p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	br := readers.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() { br.Reset(nil); readers.Put(br) }()
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", r.sb.fail(tool, p, err)
	}
	if isBinary(head, len(head) < sniffLen) {
		return fmt.Sprintf("binary file (%d bytes), not shown: %s", fi.Size(), p), nil
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 {
		limit = DefaultReadLimit
	}
	var out strings.Builder
	out.Grow(min(int(fi.Size())+int(fi.Size())/8+64, r.maxBytes+128))
	line := 0
	for line < offset-1+limit {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) == 0 && err != nil {
			break
		}
		atLineStart := true
		line++
		for {
			if line >= offset {
				if atLineStart {
					out.WriteString(strconv.Itoa(line))
					out.WriteByte('\t')
				}
				room := r.maxBytes - out.Len()
				if len(chunk) > room {
					out.Write(chunk[:max(room, 0)])
					fmt.Fprintf(&out, "\n[truncated at %d bytes in line %d; read on with offset=%d]\n", r.maxBytes, line, line+1)
					return out.String(), nil
				}
				out.Write(chunk)
			}
			atLineStart = false
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
			chunk, err = br.ReadSlice('\n')
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if !errors.Is(err, io.EOF) {
				return "", r.sb.fail(tool, p, err)
			}
			break
		}
	}
	if line < offset {
		return fmt.Sprintf("%d lines, none at offset %d: %s", line, offset, p), nil
	}
	if _, err := br.Peek(1); err == nil {
		fmt.Fprintf(&out, "[more lines follow; read on with offset=%d]\n", line+1)
	}
	return out.String(), nil
}

// readers recycles the line readers, the largest allocation of a call.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, sniffLen) }}

// isBinary reports whether head, the start of a file, looks binary: a NUL
// byte or invalid UTF-8. When head is not the whole file the last rune may
// be cut, so up to three trailing bytes are forgiven.
func isBinary(head []byte, whole bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	if whole {
		return true
	}
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			return !utf8.Valid(head[:i])
		}
	}
	return true
}
