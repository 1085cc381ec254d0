package helikon

import (
	"encoding/json"
	"testing"
)

func TestRedact_KeyNamePatterns(t *testing.T) {
	rc := NewRunContext()
	rc.gov.redaction = &redactor{}
	rc.gov.redaction.once.Do(func() {}) // no known values: key names only
	tests := []struct {
		name, in, want string
	}{
		{"KEY=value", "OPENAI_API_KEY=sk-abc123", "OPENAI_API_KEY=***"},
		{"KEY: value", "GITHUB_TOKEN: ghp_123456", "GITHUB_TOKEN: ***"},
		{"export", "export DB_PASSWORD=hunter22", "export DB_PASSWORD=***"},
		{"case-insensitive", "my_secret=abc", "my_secret=***"},
		{"credential", "AWS_CREDENTIAL=xyz", "AWS_CREDENTIAL=***"},
		{"every occurrence on a line", "A_TOKEN=1 B_TOKEN=2", "A_TOKEN=*** B_TOKEN=***"},
		{"quoted value", `X_SECRET="two words"`, `X_SECRET="***"`},
		{"header style", "X-API-KEY: abcdef\nnext", "X-API-KEY: ***\nnext"},
		{"query string", "GET /?access_token=abc&page=2", "GET /?access_token=***&page=2"},
		{"unrelated keys", "PATH=/usr/bin HOME: /root", "PATH=/usr/bin HOME: /root"},
		{"comparison is not assignment", "if a_token == b", "if a_token == b"},
		{"url is not a key", "see https://x/api_token", "see https://x/api_token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := rc.redact(ToolOutput{Parts: []ContentPart{TextPart{Text: tt.in}}})
			if got := out.Parts[0].(TextPart).Text; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedact_RawJSONStaysValid(t *testing.T) {
	rc := NewRunContext(WithExtraSecrets("s3cr3t-value-xyz", `quo"te<&>secret`))
	tests := []struct {
		name, in, want string
	}{
		{"member value", `{"api_key":"sk-1","ok":true}`, `{"api_key":"***","ok":true}`},
		{"non-string member value", `{"db_password":12345678,"n":1}`, `{"db_password":"***","n":1}`},
		{"object member value", `{"x_token":{"a":"b"},"n":1}`, `{"x_token":"***","n":1}`},
		{"assignment inside a string", `"line\nDB_PASSWORD=hunter2\nnext"`, `"line\nDB_PASSWORD=***\nnext"`},
		{"escaped quotes inside a string", `"X_SECRET=\"a b\" rest"`, `"X_SECRET=\"***\" rest"`},
		{"known value", `{"out":"token is s3cr3t-value-xyz."}`, `{"out":"token is ***."}`},
		{"known value in escaped form", `{"out":"quo\"te\u003c\u0026\u003esecret"}`, `{"out":"***"}`},
		{"nothing to do", `{"files":["a","b"],"count":2}`, `{"files":["a","b"],"count":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := rc.redact(ToolOutput{Content: json.RawMessage(tt.in)})
			if string(out.Content) != tt.want {
				t.Errorf("got %s, want %s", out.Content, tt.want)
			}
			if !json.Valid(out.Content) {
				t.Errorf("redacted output %s is not valid JSON", out.Content)
			}
		})
	}
}

func TestRedact_KnownValuesFromEnvironmentWithFloorAndCommonWords(t *testing.T) {
	t.Setenv("HELIKON_TEST_API_KEY", "env-secret-4242")
	t.Setenv("HELIKON_TEST_TOKEN", "short")
	t.Setenv("HELIKON_TEST_PASSWORD", "password")
	t.Setenv("HELIKON_PLAIN", "not-a-secret-name")
	r := &redactor{} // reads the environment on first use, as the default does
	r.once.Do(r.load)
	out, _ := r.scrub([]byte("a env-secret-4242 b short c password d not-a-secret-name"), false)
	if want := "a *** b short c password d not-a-secret-name"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestRedact_WithoutOutputRedaction(t *testing.T) {
	rc := NewRunContext(WithoutOutputRedaction())
	in := `{"api_key":"sk-1"}`
	if out := rc.redact(ToolOutput{Content: json.RawMessage(in)}); string(out.Content) != in {
		t.Errorf("redacted with redaction off: %s", out.Content)
	}
}
