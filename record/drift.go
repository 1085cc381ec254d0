package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/paigasus/helikon/mock"
)

// DriftError reports a replayed run that no longer matches its recording:
// the call (1-based) whose request differs, and each thing that changed.
type DriftError struct {
	// Call is the model invocation that drifted; Calls is how many the
	// recording has.
	Call, Calls int
	Changes     []Change
}

// Change is one difference between a recorded request and a replayed
// one. What names it ("instructions", "tool get_weather schema at
// properties.units.enum", "message 3 (tool)", "setting temperature",
// "turns"); Recorded and Now are the two values, as JSON or text.
type Change struct {
	What, Recorded, Now string
}

// Error describes every change, one per block.
func (e *DriftError) Error() string {
	var b strings.Builder
	if len(e.Changes) == 1 && e.Changes[0].What == "turns" {
		fmt.Fprintf(&b, "record: the run made %s model calls; the recording has %s", e.Changes[0].Now, e.Changes[0].Recorded)
		return b.String()
	}
	fmt.Fprintf(&b, "record: call %d of %d drifted from the recording:", e.Call, e.Calls)
	for _, c := range e.Changes {
		fmt.Fprintf(&b, "\n  %s:\n    recorded: %s\n    now:      %s", c.What, c.Recorded, c.Now)
	}
	return b.String()
}

// maxShown bounds a value quoted in a change.
const maxShown = 400

// shorten cuts s to maxShown bytes.
func shorten(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown] + "…"
}

// diffRequests lists what changed from rec to now.
func diffRequests(rec, now *mock.Request) []Change {
	var out []Change
	if a, b := strings.Join(rec.Instructions, "\n"), strings.Join(now.Instructions, "\n"); a != b {
		out = append(out, Change{"instructions", quote(a), quote(b)})
	}
	out = append(out, diffTools(rec.Tools, now.Tools)...)
	for i := range max(len(rec.Messages), len(now.Messages)) {
		what := fmt.Sprintf("message %d", i+1)
		switch {
		case i >= len(now.Messages):
			out = append(out, Change{fmt.Sprintf("%s (%s)", what, rec.Messages[i].Role), asJSON(rec.Messages[i]), "absent"})
		case i >= len(rec.Messages):
			out = append(out, Change{fmt.Sprintf("%s (%s)", what, now.Messages[i].Role), "absent", asJSON(now.Messages[i])})
		default:
			out = append(out, diffValues(fmt.Sprintf("%s (%s)", what, now.Messages[i].Role), rec.Messages[i], now.Messages[i])...)
		}
	}
	out = append(out, diffValues("setting", settingsOf(rec.Settings), settingsOf(now.Settings))...)
	return out
}

// diffTools compares tool definitions by name.
func diffTools(rec, now []mock.ToolSpec) []Change {
	var out []Change
	find := func(ts []mock.ToolSpec, name string) (mock.ToolSpec, bool) {
		i := slices.IndexFunc(ts, func(t mock.ToolSpec) bool { return t.Name == name })
		if i < 0 {
			return mock.ToolSpec{}, false
		}
		return ts[i], true
	}
	for _, r := range rec {
		n, ok := find(now, r.Name)
		if !ok {
			out = append(out, Change{"tool " + r.Name, "defined", "absent"})
			continue
		}
		if r.Description != n.Description {
			out = append(out, Change{"tool " + r.Name + " description", quote(r.Description), quote(n.Description)})
		}
		out = append(out, diffValues("tool "+r.Name+" schema", rawValue(r.Parameters), rawValue(n.Parameters))...)
	}
	for _, n := range now {
		if _, ok := find(rec, n.Name); !ok {
			out = append(out, Change{"tool " + n.Name, "absent", "defined"})
		}
	}
	return out
}

// diffValues compares a and b as JSON and names each differing path under
// what.
func diffValues(what string, a, b any) []Change {
	av, bv := generic(a), generic(b)
	var out []Change
	walk(what, "", av, bv, &out)
	return out
}

// walk descends a and b together while both are objects (or arrays of the
// same length) and records a change where they part.
func walk(what, path string, a, b any, out *[]Change) {
	if reflect.DeepEqual(a, b) {
		return
	}
	name := what
	if path != "" {
		name = what + joinPath(what, path)
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			av, aok := am[k]
			bv, bok := bm[k]
			p := strings.TrimPrefix(path+"."+k, ".")
			switch {
			case !aok:
				*out = append(*out, Change{what + joinPath(what, p), "absent", asJSON(bv)})
			case !bok:
				*out = append(*out, Change{what + joinPath(what, p), asJSON(av), "absent"})
			default:
				walk(what, p, av, bv, out)
			}
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) && len(as) > 0 {
		for i := range as {
			walk(what, fmt.Sprintf("%s[%d]", path, i), as[i], bs[i], out)
		}
		return
	}
	*out = append(*out, Change{name, shorten(asJSON(a)), shorten(asJSON(b))})
}

// joinPath puts a path after what: "setting temperature", "tool x schema
// at properties.units".
func joinPath(what, p string) string {
	if what == "setting" {
		return " " + p
	}
	return " at " + p
}

// generic turns v into what encoding/json decodes its JSON into.
func generic(v any) any {
	var out any
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return string(b)
	}
	return out
}

// rawValue is raw JSON as a value, nil when there is none.
func rawValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	return raw
}

// settingsOf is the recorded settings object, {} when none is set.
func settingsOf(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	return raw
}

// asJSON encodes v compactly.
func asJSON(v any) string {
	if v == nil {
		return "absent"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return shorten(string(b))
}

// quote shows a text value.
func quote(s string) string { return shorten(fmt.Sprintf("%q", s)) }
