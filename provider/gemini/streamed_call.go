package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Vertex AI streams a function call's arguments when
// functionCallingConfig.streamFunctionCallArguments is set, and gateways
// in front of Gemini do so too: the call's first part names it and says
// willContinue, later parts carry only partialArgs (each a value at a JSON
// path, a string possibly in several pieces) and willContinue, and a part
// without willContinue (often an empty functionCall {}) ends the call. The
// adapter assembles such a call's arguments and sends them as one
// ToolCallDelta when the call ends; a part without a name that continues
// no open call is a malformed event, never a call of its own.

// Bounds on a streamed call: what the arguments may add up to, how deep a
// path may reach and how many calls may be open at once. An array grows
// by one element at a time (an index past its end is malformed), so no
// path can make the adapter allocate what the stream did not send.
const (
	maxStreamedArgs  = 8 << 20
	maxArgPathDepth  = 64
	maxOpenCalls     = 64
	maxArgPathLength = 4 << 10
)

// errStreamedArgs is the cause of every malformed-streamed-call error.
var errStreamedArgs = errors.New("streamed function call")

// partialArg is one streamed argument value (Vertex AI's PartialArg).
type partialArg struct {
	JSONPath     string          `json:"jsonPath"`
	StringValue  *string         `json:"stringValue"`
	NumberValue  json.RawMessage `json:"numberValue"`
	BoolValue    *bool           `json:"boolValue"`
	NullValue    json.RawMessage `json:"nullValue"`
	WillContinue bool            `json:"willContinue"`
}

// streamedCall is a function call whose arguments are still arriving.
type streamedCall struct {
	id, name string
	args     map[string]any
	// contPath is the path of the last string piece that said more of
	// it would follow: the next piece at that path is appended.
	contPath string
	size     int
}

// streamedCalls holds the calls a response has open.
type streamedCalls struct {
	open []*streamedCall
}

// find returns the open call a part without a new call in it continues:
// the one with its id, or, for a part without an id, the only open call
// (with that name, when the part names one). ok is false when there is no
// such call or, without an id, more than one.
func (s *streamedCalls) find(id, name string) (c *streamedCall, ok bool) {
	for _, o := range s.open {
		switch {
		case id != "" && o.id == id:
			return o, name == "" || name == o.name
		case id == "" && (name == "" || name == o.name):
			if c != nil {
				return nil, false // ambiguous: which call does it continue?
			}
			c = o
		}
	}
	return c, c != nil
}

// begin opens a call; its initial args, when present, are the start of
// its arguments.
func (s *streamedCalls) begin(id, name string, args json.RawMessage) (*streamedCall, error) {
	if len(s.open) >= maxOpenCalls {
		return nil, fmt.Errorf("%w: more than %d calls open at once", errStreamedArgs, maxOpenCalls)
	}
	c := &streamedCall{id: id, name: name, args: map[string]any{}}
	if err := c.mergeArgs(args); err != nil {
		return nil, err
	}
	s.open = append(s.open, c)
	return c, nil
}

// end closes c and returns its arguments as a JSON object.
func (s *streamedCalls) end(c *streamedCall) (string, error) {
	for i, o := range s.open {
		if o == c {
			s.open = append(s.open[:i], s.open[i+1:]...)
			break
		}
	}
	b, err := json.Marshal(c.args)
	if err != nil {
		return "", fmt.Errorf("%w %s: %w", errStreamedArgs, c.id, err)
	}
	return string(b), nil
}

// mergeArgs merges a part's args object into the call's arguments.
func (c *streamedCall) mergeArgs(args json.RawMessage) error {
	if len(args) == 0 || string(args) == "null" {
		return nil
	}
	if c.size += len(args); c.size > maxStreamedArgs {
		return fmt.Errorf("%w %s: arguments over %d bytes", errStreamedArgs, c.id, maxStreamedArgs)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return fmt.Errorf("%w %s: args: %w", errStreamedArgs, c.id, err)
	}
	for k, v := range obj {
		c.args[k] = v
	}
	return nil
}

// add sets one streamed value.
func (c *streamedCall) add(p partialArg) error {
	if c.size += len(p.JSONPath) + len(p.NumberValue); p.StringValue != nil {
		c.size += len(*p.StringValue)
	}
	if c.size > maxStreamedArgs {
		return fmt.Errorf("%w %s: arguments over %d bytes", errStreamedArgs, c.id, maxStreamedArgs)
	}
	var v any
	switch {
	case p.StringValue != nil:
		v = *p.StringValue
	case len(p.NumberValue) > 0:
		if !json.Valid(p.NumberValue) || p.NumberValue[0] == '"' || p.NumberValue[0] == '{' || p.NumberValue[0] == '[' {
			return fmt.Errorf("%w %s: numberValue %s at %s is not a number", errStreamedArgs, c.id, p.NumberValue, p.JSONPath)
		}
		v = json.Number(p.NumberValue)
	case p.BoolValue != nil:
		v = *p.BoolValue
	case len(p.NullValue) > 0:
		v = nil
	default:
		return fmt.Errorf("%w %s: partial argument at %s has no value", errStreamedArgs, c.id, p.JSONPath)
	}
	path, err := parseArgPath(p.JSONPath)
	if err != nil {
		return fmt.Errorf("%w %s: %w", errStreamedArgs, c.id, err)
	}
	appendString := p.StringValue != nil && c.contPath == p.JSONPath
	c.contPath = ""
	if p.StringValue != nil && p.WillContinue {
		c.contPath = p.JSONPath
	}
	if err := set(c.args, path, v, appendString); err != nil {
		return fmt.Errorf("%w %s: at %s: %w", errStreamedArgs, c.id, p.JSONPath, err)
	}
	return nil
}

// pathStep is one step of an argument path: a member name or, when key
// is false, an array index.
type pathStep struct {
	name  string
	index int
	key   bool
}

// parseArgPath reads the JSON paths (RFC 9535) PartialArg uses: "$"
// followed by .name, ['name'], ["name"] and [index] steps.
func parseArgPath(p string) ([]pathStep, error) {
	if len(p) > maxArgPathLength {
		return nil, fmt.Errorf("path longer than %d bytes", maxArgPathLength)
	}
	rest, ok := strings.CutPrefix(p, "$")
	if !ok {
		return nil, fmt.Errorf("path %q does not start at $", p)
	}
	var steps []pathStep
	for rest != "" {
		if len(steps) == maxArgPathDepth {
			return nil, fmt.Errorf("path %q deeper than %d", p, maxArgPathDepth)
		}
		switch {
		case rest[0] == '.':
			rest = rest[1:]
			n := strings.IndexAny(rest, ".[")
			if n < 0 {
				n = len(rest)
			}
			if n == 0 {
				return nil, fmt.Errorf("path %q has an empty member name", p)
			}
			steps, rest = append(steps, pathStep{name: rest[:n], key: true}), rest[n:]
		case strings.HasPrefix(rest, "['") || strings.HasPrefix(rest, `["`):
			q := rest[1]
			n := strings.IndexByte(rest[2:], q)
			if n < 0 || !strings.HasPrefix(rest[2+n+1:], "]") {
				return nil, fmt.Errorf("path %q has an unterminated member name", p)
			}
			steps, rest = append(steps, pathStep{name: rest[2 : 2+n], key: true}), rest[2+n+2:]
		case rest[0] == '[':
			n := strings.IndexByte(rest, ']')
			if n < 0 {
				return nil, fmt.Errorf("path %q has an unterminated index", p)
			}
			i, err := strconv.Atoi(rest[1:n])
			if err != nil || i < 0 {
				return nil, fmt.Errorf("path %q has a bad index %q", p, rest[1:n])
			}
			steps, rest = append(steps, pathStep{index: i}), rest[n+1:]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q", p, rest[0])
		}
	}
	if len(steps) == 0 || !steps[0].key {
		return nil, fmt.Errorf("path %q does not name a member of the arguments object", p)
	}
	return steps, nil
}

// set puts v at path in root, creating the objects and arrays on the way;
// appendString appends v to the string already there.
func set(root map[string]any, path []pathStep, v any, appendString bool) error {
	var parent any = root
	for i, st := range path {
		last := i == len(path)-1
		var next any // what to put at this step when it is missing
		if !last {
			if path[i+1].key {
				next = map[string]any{}
			} else {
				next = []any{}
			}
		}
		switch p := parent.(type) {
		case map[string]any:
			if !st.key {
				return errors.New("an index into an object")
			}
			cur, ok := p[st.name]
			if last {
				if appendString {
					s, isStr := cur.(string)
					if !ok || !isStr {
						return errors.New("a string piece continues no string")
					}
					v = s + v.(string)
				}
				p[st.name] = v
				return nil
			}
			if !ok {
				cur = next
				p[st.name] = cur
			}
			parent = cur
		case []any:
			if st.key {
				return errors.New("a member of an array")
			}
			if st.index > len(p) {
				return fmt.Errorf("index %d past the array's end (%d)", st.index, len(p))
			}
			if st.index == len(p) {
				// Growing the array: it must be written back where it lies.
				if err := setIn(root, path[:i], append(p, next)); err != nil {
					return err
				}
				return set(root, path, v, appendString)
			}
			if last {
				if appendString {
					s, isStr := p[st.index].(string)
					if !isStr {
						return errors.New("a string piece continues no string")
					}
					v = s + v.(string)
				}
				p[st.index] = v
				return nil
			}
			if p[st.index] == nil {
				p[st.index] = next
			}
			parent = p[st.index]
		default:
			return errors.New("a path through a value that is neither object nor array")
		}
	}
	return nil
}

// setIn replaces the value at path (which exists) with v.
func setIn(root map[string]any, path []pathStep, v any) error {
	return set(root, path, v, false)
}
