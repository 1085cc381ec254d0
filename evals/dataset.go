package evals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"
)

// DefaultMaxLineBytes bounds one dataset line when no [WithMaxLineBytes]
// is given.
const DefaultMaxLineBytes = 1 << 20

// DefaultMaxCases bounds a dataset's case count when no [WithMaxCases] is
// given.
const DefaultMaxCases = 1_000_000

// Case is one line of a dataset: the input of a user turn and what the
// evaluators compare the run against.
type Case struct {
	// ID names the case; a line without one gets "case-<line>".
	ID string `json:"id"`
	// Input is the text of the user turn.
	Input string `json:"input"`
	// Expected is the expected final output: a JSON string for a text
	// answer, any other JSON value for a structured one. Nil when the line
	// has none.
	Expected json.RawMessage `json:"expected,omitempty"`
	// ExpectedTools lists the tool calls expected, by name, in order. Nil
	// when the line has none; an empty list expects no tool call.
	ExpectedTools []string `json:"expected_tools,omitempty"`
	// Metadata is free-form and carried through to reports and sinks.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Recording names the recording ([record.Recorder]) the case replays
	// with [RecordingFactory]; [LoadDataset] resolves a relative path from
	// the dataset's directory.
	Recording string `json:"recording,omitempty"`
	// Line is the case's 1-based line in its file.
	Line int `json:"line"`
}

// Dataset is an ordered list of cases, loaded from JSONL by [LoadDataset]
// or [ParseDataset].
type Dataset struct {
	// Name is the file's base name, or what [ParseDataset] was given.
	Name  string
	Cases []Case
}

// DatasetError reports a line of a dataset that could not be loaded.
// Column is 1-based and counts characters; it is 0 when the error concerns
// the line as a whole.
type DatasetError struct {
	File   string
	Line   int
	Column int
	Err    error
}

// Error returns "evals: FILE:LINE:COLUMN: what".
func (e *DatasetError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("evals: %s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("evals: %s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns the underlying error.
func (e *DatasetError) Unwrap() error { return e.Err }

// ErrLineTooLong reports a dataset line over the configured limit.
var ErrLineTooLong = errors.New("line too long")

// ErrTooManyCases reports a dataset with more cases than the configured
// limit.
var ErrTooManyCases = errors.New("too many cases")

// DatasetOption configures [LoadDataset] and [ParseDataset].
type DatasetOption func(*datasetConfig)

type datasetConfig struct {
	maxLine  int
	maxCases int
}

// WithMaxLineBytes bounds one line (default [DefaultMaxLineBytes]; n <= 0
// keeps the default).
func WithMaxLineBytes(n int) DatasetOption {
	return func(c *datasetConfig) {
		if n > 0 {
			c.maxLine = n
		}
	}
}

// WithMaxCases bounds the number of cases (default [DefaultMaxCases]; n <=
// 0 keeps the default).
func WithMaxCases(n int) DatasetOption {
	return func(c *datasetConfig) {
		if n > 0 {
			c.maxCases = n
		}
	}
}

// LoadDataset reads the JSONL dataset at path. Each non-blank line is one
// JSON object with a required "input" string and the optional members
// "id", "expected", "expected_tools", "metadata" and "recording"; any
// other member is an error, so that a misspelt field does not silently
// leave a case unchecked.
// Errors are [*DatasetError]s naming the file, line and column.
func LoadDataset(path string, opts ...DatasetOption) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("evals: %w", err)
	}
	defer f.Close()
	ds, err := readDataset(f, path, opts)
	if err != nil {
		return nil, err
	}
	ds.Name = filepath.Base(path)
	for i, c := range ds.Cases {
		if c.Recording != "" && !filepath.IsAbs(c.Recording) {
			ds.Cases[i].Recording = filepath.Join(filepath.Dir(path), c.Recording)
		}
	}
	return ds, nil
}

// ParseDataset parses a JSONL dataset from r; name stands for the file in
// errors and becomes the dataset's Name.
func ParseDataset(r io.Reader, name string, opts ...DatasetOption) (*Dataset, error) {
	ds, err := readDataset(r, name, opts)
	if err != nil {
		return nil, err
	}
	ds.Name = name
	return ds, nil
}

func readDataset(r io.Reader, file string, opts []DatasetOption) (*Dataset, error) {
	cfg := datasetConfig{maxLine: DefaultMaxLineBytes, maxCases: DefaultMaxCases}
	for _, o := range opts {
		o(&cfg)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(cfg.maxLine, 64<<10)), cfg.maxLine)
	ds := &Dataset{}
	ids := make(map[string]int)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if len(ds.Cases) >= cfg.maxCases {
			return nil, &DatasetError{File: file, Line: line, Err: fmt.Errorf("%w: more than %d", ErrTooManyCases, cfg.maxCases)}
		}
		c, col, err := parseCase(sc.Bytes())
		if err != nil {
			return nil, &DatasetError{File: file, Line: line, Column: col, Err: err}
		}
		c.Line = line
		if c.ID == "" {
			c.ID = "case-" + strconv.Itoa(line)
		}
		if prev, dup := ids[c.ID]; dup {
			return nil, &DatasetError{File: file, Line: line, Err: fmt.Errorf("duplicate id %q (first on line %d)", c.ID, prev)}
		}
		ids[c.ID] = line
		ds.Cases = append(ds.Cases, c)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("%w: over %d bytes", ErrLineTooLong, cfg.maxLine)
		}
		return nil, &DatasetError{File: file, Line: line + 1, Err: err}
	}
	return ds, nil
}

// parseCase decodes one line member by member, so that an error can name
// the column of the member at fault. col is 0 when the error has no place.
func parseCase(line []byte) (c Case, col int, err error) {
	column := func(off int64) int {
		o := int(min(max(off, 0), int64(len(line))))
		return utf8.RuneCount(line[:o]) + 1
	}
	if !utf8.Valid(line) {
		for i := 0; i < len(line); {
			r, n := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && n <= 1 {
				return c, column(int64(i)), errors.New("invalid UTF-8")
			}
			i += n
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	// syntax places a decoder error. The streaming decoder's offsets are
	// relative to different points depending on where it failed, so the
	// place comes from decoding the whole line in one go, whose offset
	// counts the bad byte as read.
	syntax := func(err error) (Case, int, error) {
		var se *json.SyntaxError
		var v any
		if errors.As(err, &se) && errors.As(json.Unmarshal(line, &v), &se) {
			return c, column(se.Offset - 1), err
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return c, column(int64(len(line))), errors.New("unexpected end of line")
		}
		return c, column(dec.InputOffset()), err
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return c, column(0), errors.New("a case must be a JSON object")
	}
	seen := make(map[string]bool, 5)
	hasInput := false
	for dec.More() {
		keyOff := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return syntax(err)
		}
		key, _ := tok.(string)
		// The offset before a key may sit on the comma that precedes it.
		keyCol := column(keyOff + int64(bytes.IndexByte(line[keyOff:], '"')))
		if seen[key] {
			return c, keyCol, fmt.Errorf("duplicate member %q", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		valCol := column(dec.InputOffset() - int64(len(raw)))
		var ferr error
		switch key {
		case "id":
			ferr = decodeString(raw, &c.ID)
		case "input":
			if ferr = decodeString(raw, &c.Input); ferr == nil && c.Input == "" {
				ferr = errors.New("must not be empty")
			}
			hasInput = ferr == nil
		case "expected":
			if string(raw) != "null" {
				c.Expected = raw
			}
		case "expected_tools":
			ferr = decodeTools(raw, &c.ExpectedTools)
		case "metadata":
			ferr = decodeMetadata(raw, &c.Metadata)
		case "recording":
			ferr = decodeString(raw, &c.Recording)
		default:
			return c, keyCol, fmt.Errorf("unknown member %q (want id, input, expected, expected_tools, metadata, recording)", key)
		}
		if ferr != nil {
			return c, valCol, fmt.Errorf("%s: %w", key, ferr)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return syntax(err)
	}
	if rest := dec.InputOffset(); dec.More() {
		skip := len(line[rest:]) - len(bytes.TrimLeft(line[rest:], " \t\r"))
		return c, column(rest + int64(skip)), errors.New("one JSON object per line")
	}
	if !hasInput {
		return c, 0, errors.New(`missing required member "input"`)
	}
	return c, 0, nil
}

func decodeString(raw json.RawMessage, dst *string) error {
	if len(raw) == 0 || raw[0] != '"' {
		return errors.New("must be a string")
	}
	return json.Unmarshal(raw, dst)
}

func decodeTools(raw json.RawMessage, dst *[]string) error {
	if string(raw) == "null" {
		return nil
	}
	if len(raw) == 0 || raw[0] != '[' {
		return errors.New("must be an array of tool names")
	}
	var tools []string
	if err := json.Unmarshal(raw, &tools); err != nil {
		return errors.New("must be an array of tool names")
	}
	if tools == nil {
		tools = []string{}
	}
	*dst = tools
	return nil
}

func decodeMetadata(raw json.RawMessage, dst *map[string]any) error {
	if string(raw) == "null" {
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return errors.New("must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(dst)
}
