package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsondepth"
)

// The bounds a script file is read within: a recording is a file anyone
// may have edited, so its size and nesting are checked before it is
// decoded.
const (
	// MaxScriptFileBytes bounds a script file's size.
	MaxScriptFileBytes = 64 << 20
	// MaxScriptFileDepth bounds how deeply a script file's JSON nests.
	MaxScriptFileDepth = 64
	// FormatVersion is the newest script file version this package reads
	// and the one [MarshalScriptFile] writes.
	FormatVersion = 2
)

// ErrScriptFileTooLarge reports a script file over [MaxScriptFileBytes].
var ErrScriptFileTooLarge = errors.New("script file too large")

// ParseError reports where a script file could not be read: Line is the
// 1-based line of the offending JSON value.
type ParseError struct {
	Line int
	Err  error
}

// Error returns "line N: what".
func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// ParseScriptFile parses the JSON form of a ScriptFile. A file over
// [MaxScriptFileBytes] or nested deeper than [MaxScriptFileDepth] is
// refused before it is decoded; a malformed one with a [*ParseError]
// naming its line.
func ParseScriptFile(data []byte) (*ScriptFile, error) {
	if len(data) > MaxScriptFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrScriptFileTooLarge, len(data), MaxScriptFileBytes)
	}
	if err := jsondepth.Check(data, MaxScriptFileDepth); err != nil {
		return nil, fmt.Errorf("parse script file: %w", err)
	}
	p := &parser{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	f, err := p.file()
	if err != nil {
		return nil, fmt.Errorf("parse script file: %w", err)
	}
	return f, nil
}

// parser walks a script file with a streaming decoder, so that each error
// can name the line of the value it concerns.
type parser struct {
	data []byte
	dec  *json.Decoder
}

// fail wraps err with the line of the decoder's offset, or of the offset a
// syntax or type error carries.
func (p *parser) fail(off int64, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(p.data))
		err = errors.New("the file ends early (truncated?)")
	}
	return &ParseError{Line: lineAt(p.data, off), Err: err}
}

// lineAt returns the 1-based line of byte offset off, past the blanks
// that precede a value.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	for off < int64(len(data)) && (data[off] == ' ' || data[off] == '\t' || data[off] == '\n' || data[off] == '\r' || data[off] == ',' || data[off] == ':') {
		off++
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// delim reads the next token and checks it is want.
func (p *parser) delim(want json.Delim) error {
	off := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return p.fail(off, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.fail(off, fmt.Errorf("want %q, found %v", want, tok))
	}
	return nil
}

// key reads an object member's name, or reports the object's end.
func (p *parser) key() (string, bool, error) {
	if !p.dec.More() {
		return "", false, p.delim('}')
	}
	off := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return "", false, p.fail(off, err)
	}
	return tok.(string), true, nil
}

// value decodes the next value into v.
func (p *parser) value(v any) error {
	off := p.dec.InputOffset()
	if err := p.dec.Decode(v); err != nil {
		// A type error's offset counts from the value's start.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return &ParseError{Line: lineAt(p.data, off+te.Offset), Err: err}
		}
		return p.fail(off, err)
	}
	return nil
}

// object calls member for each member of the next object.
func (p *parser) object(member func(key string) error) error {
	if err := p.delim('{'); err != nil {
		return err
	}
	for {
		k, ok, err := p.key()
		if err != nil || !ok {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
	}
}

// array calls elem for each element of the next array; null is empty.
func (p *parser) array(elem func(i int) error) error {
	off := p.dec.InputOffset()
	tok, err := p.dec.Token()
	if err != nil {
		return p.fail(off, err)
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return p.fail(off, fmt.Errorf("want an array, found %v", tok))
	}
	for i := 0; p.dec.More(); i++ {
		if err := elem(i); err != nil {
			return err
		}
	}
	return p.delim(']')
}

func (p *parser) file() (*ScriptFile, error) {
	f := &ScriptFile{Version: 1}
	err := p.object(func(k string) error {
		off := p.dec.InputOffset()
		switch k {
		case "version":
			var v int
			if err := p.value(&v); err != nil {
				return err
			}
			if v < 1 || v > FormatVersion {
				return p.fail(off, fmt.Errorf("version %d is not one this reader knows (1 to %d)", v, FormatVersion))
			}
			f.Version = v
		case "delta_delay_ms":
			var d float64
			if err := p.value(&d); err != nil {
				return err
			}
			if !(d >= 0 && d <= float64(MaxDeltaDelay/time.Millisecond)) {
				return p.fail(off, fmt.Errorf("delta_delay_ms is %v; want 0 to %d", d, MaxDeltaDelay/time.Millisecond))
			}
			f.DeltaDelay = time.Duration(d * float64(time.Millisecond))
		case "default":
			s, err := p.scripts()
			if err != nil {
				return fmt.Errorf("default: %w", err)
			}
			f.Default = s
		case "cases":
			f.Cases = map[string][]Script{}
			return p.object(func(id string) error {
				s, err := p.scripts()
				if err != nil {
					return fmt.Errorf("case %q: %w", id, err)
				}
				f.Cases[id] = s
				return nil
			})
		case "tools":
			return p.value(&f.Tools)
		case "case_tools":
			return p.value(&f.CaseTools)
		default:
			var skip json.RawMessage
			return p.value(&skip)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return f, nil
}

// end checks nothing but blanks follows the file's object.
func (p *parser) end() error {
	off := p.dec.InputOffset()
	if _, err := p.dec.Token(); err != io.EOF {
		return p.fail(off, errors.New("data after the file's object"))
	}
	return nil
}

// scripts reads a list of scripts, each a list of events or, in a
// recording, an object.
func (p *parser) scripts() ([]Script, error) {
	out := []Script{}
	err := p.array(func(i int) error {
		var s Script
		var err error
		off := p.dec.InputOffset()
		rest := bytes.TrimLeft(p.data[off:], " \t\r\n,")
		if len(rest) > 0 && rest[0] == '{' {
			err = p.recorded(&s)
		} else {
			err = p.array(func(j int) error { return p.event(&s, j) })
		}
		if err != nil {
			return fmt.Errorf("script %d: %w", i, err)
		}
		if s.Gaps != nil && len(s.Gaps) > len(s.Events)+1 {
			return p.fail(off, fmt.Errorf("script %d: %d gaps for %d events", i, len(s.Gaps), len(s.Events)))
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// recorded reads a script in its object form.
func (p *parser) recorded(s *Script) error {
	return p.object(func(k string) error {
		switch k {
		case "events":
			return p.array(func(j int) error { return p.event(s, j) })
		case "request":
			return p.value(&s.Request)
		case "gaps_ms":
			off := p.dec.InputOffset()
			var ms []float64
			if err := p.value(&ms); err != nil {
				return err
			}
			s.Gaps = make([]time.Duration, len(ms))
			for i, g := range ms {
				if !(g >= 0 && g <= float64(MaxDeltaDelay/time.Millisecond)) {
					return p.fail(off, fmt.Errorf("gap %d is %v ms; want 0 to %d", i, g, MaxDeltaDelay/time.Millisecond))
				}
				s.Gaps[i] = time.Duration(g * float64(time.Millisecond))
			}
			return nil
		default:
			var skip json.RawMessage
			return p.value(&skip)
		}
	})
}

// event reads event j of s.
func (p *parser) event(s *Script, j int) error {
	off := p.dec.InputOffset()
	var r json.RawMessage
	if err := p.value(&r); err != nil {
		return err
	}
	if s.Err != nil {
		return p.fail(off, fmt.Errorf("event %d follows an error", j))
	}
	var head struct {
		Type         string `json:"type"`
		Kind         string `json:"kind"`
		Message      string `json:"message"`
		RetryAfterMS int64  `json:"retry_after_ms"`
	}
	if err := json.Unmarshal(r, &head); err != nil {
		return p.fail(off, fmt.Errorf("event %d: %v", j, err))
	}
	if head.Type == "error" {
		kind := helikon.ModelErrorKind(head.Kind)
		if kind == "" {
			kind = helikon.ModelOther
		}
		s.Err = &helikon.ModelError{Kind: kind, Provider: "mock", Message: head.Message,
			RetryAfter: time.Duration(head.RetryAfterMS) * time.Millisecond}
		return nil
	}
	ev, err := helikon.UnmarshalModelEvent(r)
	if err != nil {
		return p.fail(off, fmt.Errorf("event %d: %v", j, err))
	}
	s.Events = append(s.Events, ev)
	return nil
}
