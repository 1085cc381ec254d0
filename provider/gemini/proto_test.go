package gemini_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// protoAPI is the Developer API's v1beta GenerateContentRequest as its
// protos describe it (testdata/generativelanguage_v1beta_generate_content.json,
// whose _source member says where it was taken from): what the discovery
// document cannot say, which members are required and which are the
// alternatives of a oneof.
type protoAPI struct {
	Root       string                   `json:"root"`
	PathFields []string                 `json:"pathFields"`
	Messages   map[string]*protoMessage `json:"messages"`
	Enums      map[string][]string      `json:"enums"`
}

type protoMessage struct {
	Fields map[string]*protoField `json:"fields"`
}

type protoField struct {
	Type     string `json:"type"`
	Repeated bool   `json:"repeated"`
	Map      bool   `json:"map"`
	Oneof    string `json:"oneof"`
	Required bool   `json:"required"`
}

var loadProtoAPI = sync.OnceValues(func() (*protoAPI, error) {
	data, err := os.ReadFile("testdata/generativelanguage_v1beta_generate_content.json")
	if err != nil {
		return nil, err
	}
	var p protoAPI
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, nil
})

// checkBody reports every way a request body departs from the protos:
// unknown members, path fields in the body, required members missing,
// more than one member of a oneof, values of the wrong JSON type and enum
// values the API does not define.
func (p *protoAPI) checkBody(body []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	var errs []string
	if obj, ok := v.(map[string]any); ok {
		for _, f := range p.PathFields {
			if _, in := obj[f]; in {
				errs = append(errs, "$."+f+": travels in the URL path, not the body")
			}
		}
	}
	p.message("$", v, p.Root, true, &errs)
	sort.Strings(errs)
	return errs
}

func (p *protoAPI) message(path string, v any, name string, root bool, errs *[]string) {
	m := p.Messages[name]
	obj, ok := v.(map[string]any)
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: %T where the protos say message %s", path, v, name))
		return
	}
	oneofs := map[string][]string{}
	for k, x := range obj {
		f := m.Fields[k]
		if f == nil {
			*errs = append(*errs, fmt.Sprintf("%s.%s: not a field of %s", path, k, name))
			continue
		}
		if f.Oneof != "" {
			oneofs[f.Oneof] = append(oneofs[f.Oneof], k)
		}
		p.field(path+"."+k, x, f, errs)
	}
	for group, set := range oneofs {
		if len(set) > 1 {
			sort.Strings(set)
			*errs = append(*errs, fmt.Sprintf("%s: oneof %s of %s has %v set, at most one may be", path, group, name, set))
		}
	}
	for k, f := range m.Fields {
		if _, in := obj[k]; f.Required && !in && !(root && contains(p.PathFields, k)) {
			*errs = append(*errs, fmt.Sprintf("%s: required field %s of %s missing", path, k, name))
		}
	}
}

func (p *protoAPI) field(path string, v any, f *protoField, errs *[]string) {
	switch {
	case f.Repeated:
		arr, ok := v.([]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: %T where the protos say a repeated field", path, v))
			return
		}
		for i, x := range arr {
			p.value(fmt.Sprintf("%s[%d]", path, i), x, f.Type, errs)
		}
	case f.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: %T where the protos say a map", path, v))
			return
		}
		for k, x := range obj {
			p.value(path+"."+k, x, f.Type, errs)
		}
	default:
		p.value(path, v, f.Type, errs)
	}
}

func (p *protoAPI) value(path string, v any, typ string, errs *[]string) {
	bad := func() { *errs = append(*errs, fmt.Sprintf("%s: %T where the protos say %s", path, v, typ)) }
	if _, ok := p.Messages[typ]; ok {
		p.message(path, v, typ, false, errs)
		return
	}
	if vals, ok := p.Enums[typ]; ok {
		s, isStr := v.(string)
		if !isStr {
			bad()
		} else if !contains(vals, s) {
			*errs = append(*errs, fmt.Sprintf("%s: %q is not a value of %s", path, s, typ))
		}
		return
	}
	switch typ {
	case "any":
	case "object":
		if _, ok := v.(map[string]any); !ok {
			bad()
		}
	case "array":
		if _, ok := v.([]any); !ok {
			bad()
		}
	case "string":
		if _, ok := v.(string); !ok {
			bad()
		}
	case "bytes":
		s, ok := v.(string)
		if !ok {
			bad()
		} else if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			if _, err := base64.URLEncoding.DecodeString(s); err != nil {
				*errs = append(*errs, fmt.Sprintf("%s: bytes that are not base64", path))
			}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad()
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			bad()
		}
	case "integer", "int64":
		n, ok := v.(json.Number)
		if s, isStr := v.(string); isStr && typ == "int64" {
			n, ok = json.Number(s), true // proto3 JSON writes 64-bit integers as strings
		}
		f, err := n.Float64()
		if !ok || err != nil || f != math.Trunc(f) || strings.ContainsAny(string(n), ".eE") {
			bad()
		}
	default:
		*errs = append(*errs, fmt.Sprintf("%s: type %s is not one the checker knows", path, typ))
	}
}

func TestProtoCheck_CatchesWhatTheProtosForbid(t *testing.T) {
	p, err := loadProtoAPI()
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	if errs := p.checkBody([]byte(ok)); len(errs) > 0 {
		t.Fatalf("a minimal valid body fails: %v", errs)
	}
	for name, tt := range map[string]struct{ body, want string }{
		"unknown member":      {`{"contents":[],"generation_config":{}}`, "not a field of"},
		"path field in body":  {`{"model":"models/x","contents":[]}`, "travels in the URL path"},
		"required missing":    {`{}`, "required field contents"},
		"nested required":     {`{"contents":[{"parts":[{"functionCall":{"args":{}}}]}]}`, "required field name of"},
		"two oneof members":   {`{"contents":[{"parts":[{"text":"a","inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}`, "at most one may be"},
		"enum":                {`{"contents":[],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`, `"SOMETIMES" is not a value`},
		"type":                {`{"contents":[],"generationConfig":{"maxOutputTokens":"10"}}`, "protos say integer"},
		"bytes":               {`{"contents":[{"parts":[{"text":"a","thoughtSignature":"!!"}]}]}`, "not base64"},
		"struct args are any": {`{"contents":[{"parts":[{"functionCall":{"name":"f","args":{"a":[1,null]}}}]}]}`, ""},
	} {
		errs := strings.Join(p.checkBody([]byte(tt.body)), "\n")
		if (tt.want == "") != (errs == "") || !strings.Contains(errs, tt.want) {
			t.Errorf("%s: errors %q, want %q", name, errs, tt.want)
		}
	}
}
