package sidecar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/pelletier/go-toml/v2"
)

// MaxFileSize bounds the sidecar and every file it references; anything
// larger is refused before it is parsed.
const MaxFileSize = 1 << 20

// File is a loaded, validated sidecar.
type File struct {
	// Path is the sidecar's path as given to [Load]; Dir is its directory,
	// which relative paths inside it are resolved against.
	Path, Dir string
	// Agents and Tools are keyed by name.
	Agents map[string]*Agent
	Tools  map[string]*Tool
	// Eval is the [eval] table, nil when absent.
	Eval *Eval
	// Files lists every file the sidecar references, for watchers.
	Files []string

	lines lineIndex
}

// Agent is one [agents.NAME] table.
type Agent struct {
	Name, Description string
	// Instructions is the text, read from InstructionsFile when that is set.
	Instructions     string
	InstructionsFile string
	Model            Model
	Tools, Handoffs  []string
	Settings         *Settings
	// Mode is the permission mode, one of [Modes], empty when unset: then
	// run and repl use "default" and serve "plan".
	Mode string
	// Ask names the tools whose calls wait for a person's approval; "*"
	// asks about every tool.
	Ask []string
	// A2A is the base URL of a remote agent served over the Agent2Agent
	// protocol: the agent is that remote (package a2a), with no model,
	// instructions, tools or handoffs of its own here.
	A2A string
	// Line is where the agent's table starts.
	Line int
}

// Modes are the permission modes an agent may set: "default" runs every
// call the agent makes except those Ask names, which wait for approval;
// "plan" runs only tools declared read_only (the Ask ones among them after
// approval) and denies the rest.
var Modes = []string{"default", "plan"}

// Model is an agent's model table.
type Model struct {
	// Provider is openai, anthropic, bedrock, gemini or mock.
	Provider string `toml:"provider"`
	// ID is the provider's model id; mock ignores it.
	ID string `toml:"id"`
	// Script is the mock provider's script file, resolved against the
	// sidecar's directory.
	Script string `toml:"script"`
}

// Settings is an agent's optional settings table.
type Settings struct {
	Temperature       *float64 `toml:"temperature"`
	TopP              *float64 `toml:"top_p"`
	MaxOutputTokens   int      `toml:"max_output_tokens"`
	ParallelToolCalls *bool    `toml:"parallel_tool_calls"`
	ReasoningEffort   string   `toml:"reasoning_effort"`
	MaxTurns          int      `toml:"max_turns"`
}

// Tool is one [tools.NAME] table: a Starlark script exposing run(args).
type Tool struct {
	Name, Description string
	// Params is the JSON Schema of the arguments.
	Params map[string]any
	// ScriptFile is the resolved path of script = "…", empty for inline.
	ScriptFile string
	// Source is the script's text, read from ScriptFile or inline.
	Source string
	// ReadOnly is read_only = true: the author declares that the script
	// changes nothing, so plan-mode permissions let the model call it.
	ReadOnly bool
	Line     int
}

// Eval is the [eval] table.
type Eval struct {
	Evaluators []string `toml:"evaluators"`
	// Dataset is the JSONL file the dev UI of helikon serve appends runs
	// saved as cases to, resolved against the sidecar's directory; it may
	// not exist yet.
	Dataset        string              `toml:"dataset"`
	JSONSchema     *EvalJSONSchema     `toml:"json_schema"`
	LLMJudge       *EvalLLMJudge       `toml:"llm_judge"`
	ToolTrajectory *EvalToolTrajectory `toml:"tool_trajectory"`
}

// EvalJSONSchema configures the json_schema evaluator.
type EvalJSONSchema struct {
	// Schema is the schema file, resolved against the sidecar's directory.
	Schema string `toml:"schema"`
}

// EvalLLMJudge configures the llm_judge evaluator.
type EvalLLMJudge struct {
	Model     Model   `toml:"model"`
	Rubric    string  `toml:"rubric"`
	Threshold float64 `toml:"threshold"`
}

// EvalToolTrajectory configures the tool_trajectory evaluator.
type EvalToolTrajectory struct {
	// Mode is exact (the default), in_order or any_order.
	Mode string `toml:"mode"`
}

type rawFile struct {
	Agents map[string]*rawAgent `toml:"agents"`
	Tools  map[string]*rawTool  `toml:"tools"`
	Eval   *Eval                `toml:"eval"`
}

type rawAgent struct {
	Description  string    `toml:"description"`
	Instructions any       `toml:"instructions"`
	Model        *Model    `toml:"model"`
	Tools        []string  `toml:"tools"`
	Handoffs     []string  `toml:"handoffs"`
	Settings     *Settings `toml:"settings"`
	Mode         string    `toml:"mode"`
	Ask          []string  `toml:"ask"`
	A2A          string    `toml:"a2a"`
}

type rawTool struct {
	Description string         `toml:"description"`
	Params      map[string]any `toml:"params"`
	Script      string         `toml:"script"`
	Inline      *string        `toml:"inline"`
	ReadOnly    bool           `toml:"read_only"`
}

// Providers are the model providers a sidecar may name.
var Providers = []string{"openai", "anthropic", "bedrock", "gemini", "mock"}

// Evaluators are the built-in evaluators [eval].evaluators may name.
var Evaluators = []string{"exact_match", "tool_trajectory", "json_schema", "llm_judge"}

// Load reads, parses and validates the sidecar at path. A syntax or
// validation problem is returned as [Errors], each entry carrying its line.
func Load(path string) (*File, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error()}
	}
	return Parse(path, data)
}

// Parse parses and validates data as the sidecar at path; path names the
// file in errors and anchors relative paths.
func Parse(path string, data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("file is %d bytes, over the %d-byte limit", len(data), MaxFileSize)}
	}
	var raw rawFile
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, decodeErrors(path, err)
	}
	f := &File{
		Path: path, Dir: filepath.Dir(path),
		Agents: map[string]*Agent{}, Tools: map[string]*Tool{},
		Eval:  raw.Eval,
		lines: indexLines(data),
	}
	v := &validator{f: f}
	v.tools(raw.Tools)
	v.agents(raw.Agents)
	v.eval()
	if len(v.errs) > 0 {
		sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].Line < v.errs[j].Line })
		return nil, v.errs
	}
	return f, nil
}

func decodeErrors(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		out := make(Errors, 0, len(strict.Errors))
		for i := range strict.Errors {
			de := &strict.Errors[i]
			row, _ := de.Position()
			out = append(out, &Error{File: path, Line: row, Key: joinKey(de.Key()),
				Msg: "unknown key (check the spelling; see docs/cli.md for the format)"})
		}
		return out
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return Errors{{File: path, Line: row, Key: joinKey(de.Key()), Msg: de.Error()}}
	}
	return Errors{{File: path, Msg: err.Error()}}
}

func joinKey(k toml.Key) string {
	return fmtKey(k...)
}

func fmtKey(parts ...string) string {
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// readBounded reads a file, refusing one over [MaxFileSize].
func readBounded(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is over the %d-byte limit", path, MaxFileSize)
	}
	return data, nil
}

// AgentNames returns the agents' names in alphabetical order; the first is
// the default agent.
func (f *File) AgentNames() []string {
	names := make([]string, 0, len(f.Agents))
	for n := range f.Agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Errorf returns an [*Error] located at key, for problems found after
// loading (a missing API key, an evaluator that fails to build).
func (f *File) Errorf(key, format string, args ...any) *Error {
	return &Error{File: f.Path, Line: f.lines.line(key), Key: key, Msg: fmt.Sprintf(format, args...)}
}
