package governance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon"
	"strings"
	"testing"
)

func TestRedact_KeyNamePatterns(t *testing.T) {
	r := &redactor{}
	r.once.Do(func() {}) // no known values: key names only
	rc := helikon.NewRunContext(helikon.WithRedactor(r))
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
			out := redactOf(rc, helikon.ToolOutput{Parts: []helikon.ContentPart{helikon.TextPart{Text: tt.in}}})
			if got := out.Parts[0].(helikon.TextPart).Text; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRedact_RawJSONStaysValid(t *testing.T) {
	rc := helikon.NewRunContext(WithExtraSecrets("s3cr3t-value-xyz", `quo"te<&>secret`))
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
			out := redactOf(rc, helikon.ToolOutput{Content: json.RawMessage(tt.in)})
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
	rc := helikon.NewRunContext(WithoutOutputRedaction())
	in := `{"api_key":"sk-1"}`
	if out := redactOf(rc, helikon.ToolOutput{Content: json.RawMessage(in)}); string(out.Content) != in {
		t.Errorf("redacted with redaction off: %s", out.Content)
	}
}

func TestRedact_EscapedFormsBlocksURLsCookiesAndCamelCase(t *testing.T) {
	const secret = "s3cr3t-V4lue/with+slash"
	r := &redactor{extra: []string{secret}}
	r.once.Do(r.load)
	inner, _ := json.Marshal(map[string]string{"note": secret})
	double, _ := json.Marshal(string(inner))
	var uLower, uUpper strings.Builder
	for _, c := range secret {
		fmt.Fprintf(&uLower, `\u%04x`, c)
		fmt.Fprintf(&uUpper, `\u%04X`, c)
	}
	tests := []struct {
		name, in string
		json     bool
		gone     []string
	}{
		{"JSON nested in a JSON string", string(double), true, []string{"V4lue"}},
		{`\/-escaped`, `"` + strings.ReplaceAll(secret, "/", `\/`) + `"`, true, []string{"V4lue"}},
		{`\u-escaped, lower hex`, `"` + uLower.String() + `"`, true, []string{uLower.String()}},
		{`\u-escaped, upper hex`, `"` + uUpper.String() + `"`, true, []string{uUpper.String()}},
		{"PEM under a YAML block scalar", "tls:\n  private_key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEowIBAAKCAQEA1\n    QmFzZTY0Ym9keQ2\n    -----END RSA PRIVATE KEY-----\n  port: 443\n", false,
			[]string{"MIIEowIBAAKCAQEA1", "QmFzZTY0Ym9keQ2"}},
		{"block scalar in a JSON string", `"db:\n  password: >-\n    line-one-secret\n    line-two-secret\nname: x"`, true, []string{"line-one-secret", "line-two-secret"}},
		{"bare PEM block", "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\nAAAABG5vbmUAAAA\n-----END OPENSSH PRIVATE KEY-----\n", false, []string{"b3BlbnNzaC1rZXktdjEA", "AAAABG5vbmUAAAA"}},
		{"camelCase keys", `{"accessToken":"tok-abc-123","clientSecret":"cs-xyz-789","refreshToken":"rt-1"}`, true, []string{"tok-abc-123", "cs-xyz-789", "rt-1"}},
		{"password in a URL", "DATABASE_URL is postgres://app:pw-in-url-42@db:5432/main and redis://:redispw99@cache", false, []string{"pw-in-url-42", "redispw99"}},
		{"Cookie headers", "Cookie: session=abc123def; theme=dark\nSet-Cookie: id=zz99yy88; HttpOnly\nAccept: */*", false, []string{"abc123def", "zz99yy88"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _ := r.scrub([]byte(tt.in), tt.json)
			for _, g := range tt.gone {
				if bytes.Contains(out, []byte(g)) {
					t.Errorf("%q survived: %s", g, out)
				}
			}
			if tt.json && json.Valid([]byte(tt.in)) && !json.Valid(out) {
				t.Errorf("redaction broke the JSON: %s", out)
			}
		})
	}
	// What is not secret stays.
	out, _ := r.scrub([]byte("tls:\n  private_key: |\n    x\n  port: 443\nhttps://example.com/a:b@c"), false)
	if !bytes.Contains(out, []byte("port: 443")) || !bytes.Contains(out, []byte("https://example.com/a:b@c")) {
		t.Errorf("redaction ate too much: %s", out)
	}
}
