package evals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"unicode/utf8"
)

// ErrCaseExists reports an [AppendCase] of a case whose id the dataset
// already holds: a dataset with two cases of one id would no longer load.
var ErrCaseExists = errors.New("evals: the dataset already has a case with this id")

// appendLocks serialises appends to one file within the process; the
// file lock ([lockFile]) does it across processes.
var appendLocks sync.Map // absolute path → *sync.Mutex

// caseLine is what a dataset line holds of a [Case]: Line is where the
// case was read, never a member.
type caseLine struct {
	ID            string          `json:"id"`
	Input         string          `json:"input"`
	Expected      json.RawMessage `json:"expected,omitempty"`
	ExpectedTools json.RawMessage `json:"expected_tools,omitempty"` // [] stays: it expects no call
	Metadata      map[string]any  `json:"metadata,omitempty"`
	Recording     string          `json:"recording,omitempty"`
}

// AppendCase appends c as one line to the JSONL dataset at path, creating
// the file if needed, so that [LoadDataset] reads it back (the dev UI's
// "Save as case" writes through it). It refuses, changing nothing, a case
// without an id or input, a line over the limit ([WithMaxLineBytes]), a
// dataset that does not load (the error names its line), one already
// holding c.ID ([ErrCaseExists]) or already at [WithMaxCases]. Appends to
// one file are serialised within the process and, where the system has
// advisory locks, across processes; each is a single write, so a reader
// never sees half a line. Expected tools are written as given: an empty
// non-nil list expects no call.
func AppendCase(path string, c Case, opts ...DatasetOption) error {
	cfg := datasetConfig{maxLine: DefaultMaxLineBytes, maxCases: DefaultMaxCases}
	for _, o := range opts {
		o(&cfg)
	}
	if c.ID == "" || c.Input == "" {
		return fmt.Errorf("evals: append to %s: a case needs an id and an input", path)
	}
	if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Input) {
		return fmt.Errorf("evals: append to %s: case %q is not valid UTF-8", path, c.ID)
	}
	cl := caseLine{ID: c.ID, Input: c.Input, Expected: c.Expected, Metadata: c.Metadata, Recording: c.Recording}
	if c.ExpectedTools != nil {
		cl.ExpectedTools, _ = json.Marshal(c.ExpectedTools)
	}
	line, err := json.Marshal(cl)
	if err != nil {
		return fmt.Errorf("evals: append to %s: %w", path, err)
	}
	if len(line) > cfg.maxLine {
		return fmt.Errorf("evals: append to %s: case %q: %w: %d bytes, over %d", path, c.ID, ErrLineTooLong, len(line), cfg.maxLine)
	}
	// The line must read back as the case it was built from.
	if _, col, err := parseCase(line); err != nil {
		return fmt.Errorf("evals: append to %s: case %q would not load (column %d): %w", path, c.ID, col, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("evals: append to %s: %w", path, err)
	}
	mu, _ := appendLocks.LoadOrStore(abs, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("evals: append to %s: %w", path, err)
	}
	defer f.Close()
	unlock, err := lockFile(f)
	if err != nil {
		return fmt.Errorf("evals: append to %s: lock: %w", path, err)
	}
	defer unlock()
	ds, err := readDataset(f, filepath.Base(path), opts)
	if err != nil {
		return fmt.Errorf("evals: append to %s: the dataset does not load, so nothing was added: %w", path, err)
	}
	if len(ds.Cases) >= cfg.maxCases {
		return fmt.Errorf("evals: append to %s: %w: it holds %d", path, ErrTooManyCases, len(ds.Cases))
	}
	for _, have := range ds.Cases {
		if have.ID == c.ID {
			return fmt.Errorf("%w: %q on line %d of %s", ErrCaseExists, c.ID, have.Line, path)
		}
	}
	// A last line without its newline (a file edited by hand) gets one
	// first, so the case starts a line of its own.
	var buf bytes.Buffer
	if end, err := lastByte(f); err != nil {
		return fmt.Errorf("evals: append to %s: %w", path, err)
	} else if end >= 0 && end != '\n' {
		buf.WriteByte('\n')
	}
	buf.Write(line)
	buf.WriteByte('\n')
	if _, err := f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("evals: append to %s: %w", path, err)
	}
	return nil
}

// lastByte returns the file's last byte, or -1 when it is empty.
func lastByte(f *os.File) (int, error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return -1, err
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], st.Size()-1); err != nil && !errors.Is(err, io.EOF) {
		return -1, err
	}
	return int(b[0]), nil
}
