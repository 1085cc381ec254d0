package gemini_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

// discovery is the part of Vertex AI's v1 discovery document that
// describes GenerateContentRequest (testdata/aiplatform_v1_generate_content.json,
// whose _source member says where it was taken from). The Developer API's
// v1beta request has the same shape for every field the adapter sends.
type discovery struct {
	Root    string                  `json:"root"`
	Schemas map[string]*discoSchema `json:"schemas"`
}

type discoSchema struct {
	Type                 string                  `json:"type"`
	Format               string                  `json:"format"`
	Ref                  string                  `json:"$ref"`
	Properties           map[string]*discoSchema `json:"properties"`
	Items                *discoSchema            `json:"items"`
	AdditionalProperties *discoSchema            `json:"additionalProperties"`
	Enum                 []string                `json:"enum"`
}

func loadDiscovery(t testing.TB) *discovery {
	t.Helper()
	data, err := os.ReadFile("testdata/aiplatform_v1_generate_content.json")
	if err != nil {
		t.Fatal(err)
	}
	var d discovery
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// checkBody reports every member of a request body the discovery document
// does not describe, and every value of the wrong JSON type.
func (d *discovery) checkBody(body []byte) []string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{"body is not JSON: " + err.Error()}
	}
	var errs []string
	d.check("$", v, &discoSchema{Ref: d.Root}, &errs)
	sort.Strings(errs)
	return errs
}

func (d *discovery) check(path string, v any, s *discoSchema, errs *[]string) {
	if s.Ref != "" {
		r, ok := d.Schemas[s.Ref]
		if !ok {
			*errs = append(*errs, fmt.Sprintf("%s: schema %s missing from the document", path, s.Ref))
			return
		}
		s = r
	}
	bad := func(want string) {
		*errs = append(*errs, fmt.Sprintf("%s: %T where the document says %s", path, v, want))
	}
	switch s.Type {
	case "any", "":
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("string")
			return
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			*errs = append(*errs, fmt.Sprintf("%s: %q is not one of %v", path, str, s.Enum))
		}
	case "integer", "number":
		if _, ok := v.(float64); !ok {
			bad(s.Type)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("boolean")
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			bad("array")
			return
		}
		for i, x := range arr {
			d.check(fmt.Sprintf("%s[%d]", path, i), x, s.Items, errs)
		}
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			bad("object")
			return
		}
		for k, x := range obj {
			p := path + "." + k
			switch {
			case s.Properties[k] != nil:
				d.check(p, x, s.Properties[k], errs)
			case s.AdditionalProperties != nil:
				d.check(p, x, s.AdditionalProperties, errs)
			default:
				*errs = append(*errs, p+": not a member the document describes")
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkVertexRequest checks a Vertex AI request body against Vertex AI's
// discovery document.
func checkVertexRequest(t *testing.T, body []byte) {
	t.Helper()
	if errs := loadDiscovery(t).checkBody(body); len(errs) > 0 {
		t.Errorf("request body does not match the discovery document:\n%s\n%s", strings.Join(errs, "\n"), body)
	}
}

// checkRequest is the conformance suite's CheckRequest, for the Developer
// API: the body must match the Developer API's v1beta protos, and Vertex
// AI's discovery document as well, since nearly all of it is the same on
// both transports.
func checkRequest(t *testing.T, body []byte) {
	t.Helper()
	checkVertexRequest(t, body)
	p, err := loadProtoAPI()
	if err != nil {
		t.Fatal(err)
	}
	if errs := p.checkBody(body); len(errs) > 0 {
		t.Errorf("request body does not match the v1beta protos:\n%s\n%s", strings.Join(errs, "\n"), body)
	}
}

func TestDiscoveryCheck_CatchesUnknownMembersAndWrongTypes(t *testing.T) {
	d := loadDiscovery(t)
	for name, body := range map[string]string{
		"unknown member":       `{"contents":[{"role":"user","parts":[{"txt":"hi"}]}]}`,
		"snake case":           `{"contents":[],"generation_config":{}}`,
		"wrong type":           `{"contents":[{"role":"user","parts":[{"text":1}]}]}`,
		"bad enum":             `{"contents":[],"toolConfig":{"functionCallingConfig":{"mode":"auto"}}}`,
		"string for an number": `{"contents":[],"generationConfig":{"temperature":"0.5"}}`,
	} {
		if errs := d.checkBody([]byte(body)); len(errs) == 0 {
			t.Errorf("%s: %s passed the check", name, body)
		}
	}
	if errs := d.checkBody([]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":0.5}}`)); len(errs) > 0 {
		t.Errorf("a valid body failed: %v", errs)
	}
}
