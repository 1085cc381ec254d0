package sidecar

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paigasus/helikon/cli/starlarktool"
	"github.com/paigasus/helikon/mock"
)

type validator struct {
	f    *File
	errs Errors
}

func (v *validator) errorf(key, format string, args ...any) {
	v.errs = append(v.errs, v.f.Errorf(key, format, args...))
}

// file resolves a path written in the sidecar and reads it.
func (v *validator) file(key, p string) (string, []byte, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(v.f.Dir, p)
	}
	data, err := readBounded(p)
	if err != nil {
		v.errorf(key, "%v", err)
		return p, nil, false
	}
	v.f.Files = append(v.f.Files, p)
	return p, data, true
}

func (v *validator) tools(raw map[string]*rawTool) {
	for name, rt := range raw {
		key := "tools." + name
		if rt == nil {
			rt = &rawTool{}
		}
		t := &Tool{Name: name, Description: rt.Description, Params: rt.Params, ReadOnly: rt.ReadOnly, Line: v.f.lines.line(key)}
		switch {
		case rt.Script != "" && rt.Inline != nil:
			v.errorf(key, "set exactly one of script and inline, not both")
			continue
		case rt.Script != "":
			p, data, ok := v.file(key+".script", rt.Script)
			if !ok {
				continue
			}
			t.ScriptFile, t.Source = p, string(data)
		case rt.Inline != nil:
			t.Source = *rt.Inline
		default:
			v.errorf(key, "set script = \"path.star\" or inline = '''…''' (exactly one)")
			continue
		}
		if t.Params == nil {
			t.Params = map[string]any{"type": "object"}
		} else if ty, _ := t.Params["type"].(string); ty != "object" {
			v.errorf(key+".params", "params must be a JSON Schema with type = \"object\"")
		}
		filename := t.ScriptFile
		if filename == "" {
			filename = fmt.Sprintf("%s:[tools.%s].inline", v.f.Path, name)
		}
		if _, err := starlarktool.Compile(filename, t.Source); err != nil {
			v.errorf(key, "%v", err)
			continue
		}
		v.f.Tools[name] = t
	}
}

func (v *validator) agents(raw map[string]*rawAgent) {
	if len(raw) == 0 {
		v.errorf("", "no agents: declare at least one [agents.NAME] table")
		return
	}
	for name, ra := range raw {
		key := "agents." + name
		if ra == nil {
			ra = &rawAgent{}
		}
		a := &Agent{Name: name, Description: ra.Description, Tools: ra.Tools, Handoffs: ra.Handoffs,
			Settings: ra.Settings, Mode: ra.Mode, Ask: ra.Ask, Line: v.f.lines.line(key)}
		if ra.A2A != "" {
			v.remote(key, a, ra)
			v.f.Agents[name] = a
			continue
		}
		v.instructions(key, a, ra.Instructions)
		if ra.Model == nil {
			v.errorf(key, "missing model: add model = { provider = \"mock\", script = \"script.json\" } or an openai/anthropic model")
		} else {
			a.Model = *ra.Model
			v.model(key+".model", &a.Model)
		}
		for _, t := range a.Tools {
			if _, ok := raw2tool(v, t); !ok {
				v.errorf(key+".tools", "unknown tool %q: declare it as [tools.%s]", t, t)
			}
		}
		v.permissions(key, a)
		for _, h := range a.Handoffs {
			switch {
			case h == name:
				v.errorf(key+".handoffs", "handoff cycle detected: %s hands off to itself; declare one-way handoff chains", name)
			case raw[h] == nil:
				v.errorf(key+".handoffs", "unknown agent %q: declare it as [agents.%s]", h, h)
			}
		}
		v.f.Agents[name] = a
	}
	v.cycles()
}

// permissions checks an agent's mode and the tools it asks about: each a
// tool the agent has, and none that its mode denies anyway.
func (v *validator) permissions(key string, a *Agent) {
	if a.Mode != "" && !slices.Contains(Modes, a.Mode) {
		v.errorf(key+".mode", "unknown permission mode %q (want %s)", a.Mode, strings.Join(Modes, " or "))
	}
	for _, t := range a.Ask {
		switch {
		case t == "*":
		case !slices.Contains(a.Tools, t):
			v.errorf(key+".ask", "ask names %q, which is not one of %s's tools (%s); list tools from its tools = [...], or \"*\" for all", t, a.Name, toolList(a.Tools))
		case a.Mode == "plan" && v.f.Tools[t] != nil && !v.f.Tools[t].ReadOnly:
			v.errorf(key+".ask", "ask names %q, which plan mode denies without asking (it is not read_only); set mode = \"default\" to ask about it", t)
		}
	}
}

func toolList(tools []string) string {
	if len(tools) == 0 {
		return "it has none"
	}
	return strings.Join(tools, ", ")
}

// raw2tool reports whether a tool name was declared, counting tools that
// were declared but failed validation so one mistake is reported once.
func raw2tool(v *validator, name string) (*Tool, bool) {
	if t, ok := v.f.Tools[name]; ok {
		return t, true
	}
	prefix := "tools." + name
	for _, e := range v.errs {
		if e.Key == prefix || strings.HasPrefix(e.Key, prefix+".") {
			return nil, true
		}
	}
	return nil, false
}

func (v *validator) instructions(key string, a *Agent, in any) {
	switch x := in.(type) {
	case nil:
	case string:
		a.Instructions = x
	case map[string]any:
		for k := range x {
			if k != "file" {
				v.errorf(key+".instructions."+k, "unknown key (instructions is a string or { file = \"path.md\" })")
				return
			}
		}
		p, ok := x["file"].(string)
		if !ok || p == "" {
			v.errorf(key+".instructions", "instructions is a string or { file = \"path.md\" }")
			return
		}
		path, data, ok := v.file(key+".instructions.file", p)
		if ok {
			a.Instructions, a.InstructionsFile = string(data), path
		}
	default:
		v.errorf(key+".instructions", "instructions is a string or { file = \"path.md\" }, not %T", in)
	}
}

func (v *validator) model(key string, m *Model) {
	if !slices.Contains(Providers, m.Provider) {
		v.errorf(key+".provider", "unknown provider %q (want one of %s)", m.Provider, strings.Join(Providers, ", "))
		return
	}
	if m.Provider == "mock" {
		if m.Script == "" {
			v.errorf(key, "the mock provider needs script = \"script.json\" (a mock ScriptFile)")
			return
		}
		p, data, ok := v.file(key+".script", m.Script)
		if !ok {
			return
		}
		if _, err := mock.ParseScriptFile(data); err != nil {
			v.errorf(key+".script", "%s: %v", p, err)
			return
		}
		m.Script = p
		return
	}
	if m.Script != "" {
		v.errorf(key+".script", "script is for the mock provider only")
	}
	if m.ID == "" {
		v.errorf(key, "provider %s needs id = \"model-id\"", m.Provider)
	}
}

// cycles rejects any handoff chain that comes back to where it started.
func (v *validator) cycles() {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) bool
	visit = func(n string) bool {
		switch state[n] {
		case active:
			i := slices.Index(path, n)
			cycle := append(append([]string(nil), path[i:]...), n)
			v.errorf("agents."+path[len(path)-1]+".handoffs",
				"handoff cycle detected: %s; declare one-way handoff chains (use a swarm from the Go API for a full mesh)",
				strings.Join(cycle, " -> "))
			return true
		case done:
			return false
		}
		state[n] = active
		path = append(path, n)
		a := v.f.Agents[n]
		if a != nil {
			for _, h := range a.Handoffs {
				if h != n && v.f.Agents[h] != nil && visit(h) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return false
	}
	for _, n := range v.f.AgentNames() {
		if state[n] == unseen {
			path = path[:0]
			if visit(n) {
				return
			}
		}
	}
}

func (v *validator) eval() {
	e := v.f.Eval
	if e == nil {
		return
	}
	if e.Dataset != "" && !filepath.IsAbs(e.Dataset) {
		e.Dataset = filepath.Join(v.f.Dir, e.Dataset)
	}
	for _, name := range e.Evaluators {
		if !slices.Contains(Evaluators, name) {
			v.errorf("eval.evaluators", "unknown evaluator %q (want one of %s)", name, strings.Join(Evaluators, ", "))
		}
	}
	if slices.Contains(e.Evaluators, "json_schema") {
		if e.JSONSchema == nil || e.JSONSchema.Schema == "" {
			v.errorf("eval.evaluators", "json_schema needs an [eval.json_schema] block with schema = \"file.json\"")
		} else if p, _, ok := v.file("eval.json_schema.schema", e.JSONSchema.Schema); ok {
			e.JSONSchema.Schema = p
		}
	}
	if slices.Contains(e.Evaluators, "llm_judge") {
		if e.LLMJudge == nil {
			v.errorf("eval.evaluators", "llm_judge needs an [eval.llm_judge] block with model, rubric and threshold")
		} else {
			v.model("eval.llm_judge.model", &e.LLMJudge.Model)
			if e.LLMJudge.Rubric == "" {
				v.errorf("eval.llm_judge", "llm_judge needs a rubric")
			}
			if e.LLMJudge.Threshold <= 0 || e.LLMJudge.Threshold > 1 {
				v.errorf("eval.llm_judge.threshold", "threshold must be in (0, 1], got %v", e.LLMJudge.Threshold)
			}
		}
	}
	if t := e.ToolTrajectory; t != nil && t.Mode != "" && !slices.Contains([]string{"exact", "in_order", "any_order"}, t.Mode) {
		v.errorf("eval.tool_trajectory.mode", "unknown mode %q (want exact, in_order or any_order)", t.Mode)
	}
}

// remote checks an agent that is a remote A2A agent: an http(s) base URL,
// and nothing that only a local agent has.
func (v *validator) remote(key string, a *Agent, ra *rawAgent) {
	u, err := url.Parse(ra.A2A)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		v.errorf(key+".a2a", "a2a is the remote agent's base URL, http(s)://host[:port]/…, not %q", ra.A2A)
	} else {
		a.A2A = ra.A2A
	}
	local := []struct {
		name string
		set  bool
	}{
		{"model", ra.Model != nil}, {"instructions", ra.Instructions != nil}, {"tools", len(ra.Tools) > 0},
		{"handoffs", len(ra.Handoffs) > 0}, {"settings", ra.Settings != nil}, {"mode", ra.Mode != ""}, {"ask", len(ra.Ask) > 0},
	}
	for _, k := range local {
		if k.set {
			v.errorf(key+"."+k.name, "a remote A2A agent (a2a = …) has no %s here: its server decides; remove the key", k.name)
		}
	}
}
