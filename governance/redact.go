package governance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/paigasus/helikon"
	"os"
	"slices"
	"strings"
	"sync"
)

// redactor scrubs secret-shaped strings from tool output. It is on by
// default; the zero value redacts with the process environment's secrets.
type redactor struct {
	off   bool
	extra []string

	once    sync.Once
	secrets [][]byte // known values, longest first, each also in JSON-escaped form
}

// defaultRedactor serves every context without its own secrets, so the
// environment is read once per process.
var defaultRedactor = &redactor{}

// mask replaces a redacted value.
const mask = "***"

// minSecretLen is the floor below which a known value is not scanned for:
// short values match ordinary text.
const minSecretLen = 8

// WithExtraSecrets adds known secret values to the redaction scan, beside
// the secret-named variables of the process environment. Values shorter
// than 8 bytes or that are common words are ignored.
func WithExtraSecrets(values ...string) helikon.ContextOption {
	return helikon.WithRedactorFrom(func(r helikon.Redactor) helikon.Redactor {
		prev, ok := r.(*redactor)
		if !ok {
			prev = defaultRedactor
		}
		return &redactor{off: prev.off, extra: slices.Concat(prev.extra, values)}
	})
}

// WithoutOutputRedaction turns secret redaction of tool output off.
func WithoutOutputRedaction() helikon.ContextOption {
	return helikon.WithRedactor(&redactor{off: true})
}

// RedactOutput implements [helikon.Redactor]: it is the last transform on
// tool output before it reaches the model and the session: values of secret-named keys, then known secret values,
// are replaced with ***.
//
// Two matchers run. Key names: KEY=value, KEY: value and export KEY=value
// where KEY ends, case-insensitively and with - read as _, in _API_KEY,
// _TOKEN, _SECRET, _PASSWORD, _PASSWD, _CREDENTIAL(S), _ACCESS_KEY,
// _SECRET_KEY or _PRIVATE_KEY, or is one of those without the underscore
// (API_KEY, TOKEN, …) or AUTHORIZATION; every occurrence on a line, JSON
// object members ("api_key": "…") and header-style names (X-API-KEY: …)
// included. Known values: the values of the process environment's
// secret-named variables and [WithExtraSecrets], matched literally and
// case-sensitively.
func (r *redactor) RedactOutput(out helikon.ToolOutput) helikon.ToolOutput {
	if r.off {
		return out
	}
	r.once.Do(r.load)
	if len(out.Content) > 0 {
		if c, changed := r.scrub(out.Content, true); changed {
			out.Content = c
		}
	}
	cloned := false
	for i, p := range out.Parts {
		t, ok := p.(helikon.TextPart)
		if !ok {
			continue
		}
		if c, changed := r.scrub([]byte(t.Text), false); changed {
			if !cloned {
				out.Parts, cloned = slices.Clone(out.Parts), true
			}
			t.Text = string(c)
			out.Parts[i] = t
		}
	}
	return out
}

// load collects the known secret values.
func (r *redactor) load() {
	var vals []string
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if ok && secretKey([]byte(k)) {
			vals = append(vals, v)
		}
	}
	vals = append(vals, r.extra...)
	seen := map[string]bool{}
	for _, v := range vals {
		if len(v) < minSecretLen || commonWords()[strings.ToLower(v)] || seen[v] {
			continue
		}
		seen[v] = true
		for _, form := range escapedForms(v) {
			if !slices.ContainsFunc(r.secrets, func(b []byte) bool { return string(b) == form }) {
				r.secrets = append(r.secrets, []byte(form))
			}
		}
	}
	slices.SortFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
}

// escapedForms returns v as it may appear in tool output: as is, escaped
// for a JSON string, escaped again for JSON nested in a JSON string, with
// "/" escaped as "\/", and with every character escaped as \uXXXX, in lower
// and upper case hex.
func escapedForms(v string) []string {
	forms := []string{v}
	esc := jsonEscape(v)
	forms = append(forms, esc, jsonEscape(esc), strings.ReplaceAll(esc, "/", `\/`))
	var lower, upper strings.Builder
	for _, c := range v {
		if c > 0xffff {
			lower.Reset()
			break
		}
		fmt.Fprintf(&lower, `\u%04x`, c)
		fmt.Fprintf(&upper, `\u%04X`, c)
	}
	if lower.Len() > 0 {
		forms = append(forms, lower.String(), upper.String())
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// jsonEscape returns v escaped for the inside of a JSON string.
func jsonEscape(v string) string {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return string(b[1 : len(b)-1])
}

// RedactText implements [helikon.Redactor]: it redacts a message bound for
// the model, the events, the session or the log: a tool's error, a panic
// value, a denial reason.
func (r *redactor) RedactText(s string) string {
	if r.off {
		return s
	}
	r.once.Do(r.load)
	if out, changed := r.scrub([]byte(s), false); changed {
		return string(out)
	}
	return s
}

// commonWords are values too ordinary to scan for even when a secret-named
// variable holds them.
var commonWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"password": true, "changeme": true, "changeit": true, "undefined": true, "localhost": true,
		"development": true, "production": true, "staging": true, "disabled": true, "enabled": true,
		"required": true, "optional": true, "default": true, "username": true, "example": true,
		"placeholder": true, "redacted": true, "anonymous": true, "password1": true, "12345678": true,
		"123456789": true, "qwertyuiop": true, "abcdefgh": true, "testtest": true, "test1234": true,
		"secret123": true, "letmein1": true, "administrator": true, "unknown1": true, "notasecret": true,
	}
})

// scrub redacts text, raw JSON when json is set. It returns text itself
// when nothing matched.
func (r *redactor) scrub(text []byte, json bool) ([]byte, bool) {
	// Blocks first: the key matcher would take a block's indicator (|, >)
	// for its whole value.
	out, changed := text, false
	for _, f := range [...]func([]byte) ([]byte, bool){scrubPEM, scrubBlockScalars, scrubURLPasswords} {
		if o, c := f(out); c {
			out, changed = o, true
		}
	}
	if o, c := scrubKeys(out, json); c {
		out, changed = o, true
	}
	for _, s := range r.secrets {
		if bytes.Contains(out, s) {
			out = bytes.ReplaceAll(out, s, []byte(mask))
			changed = true
		}
	}
	return out, changed
}

// scrubKeys masks the values of secret-named keys. In raw JSON it tracks
// whether it is inside a string, so a member value outside one becomes the
// string "***" and text inside one stops at the escapes that end a line.
func scrubKeys(text []byte, isJSON bool) ([]byte, bool) {
	var out []byte // nil until the first change
	last := 0      // text[last:] is not yet copied to out
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if isJSON {
			if c == '\\' && inString {
				i++
				continue
			}
			if c == '"' {
				inString = !inString
				continue
			}
		}
		if c != '=' && c != ':' {
			continue
		}
		if i+1 < len(text) && (text[i+1] == c || (c == ':' && text[i+1] == '/')) {
			i++ // ==, ::, and :// are not assignments
			continue
		}
		if !secretKey(keyBefore(text, i, isJSON && inString)) {
			continue
		}
		structural := isJSON && !inString
		vs, ve, quoted := valueAfter(text, i+1, c, isJSON, inString)
		if ve <= vs {
			continue
		}
		out = append(out, text[last:vs]...)
		if structural && !quoted {
			out = append(out, `"`+mask+`"`...)
		} else {
			out = append(out, mask...)
		}
		last = ve
		i = ve - 1
		if structural && quoted {
			// Step past the member's closing quote, as past its opening one,
			// so the string state stays outside.
			i = ve
		}
	}
	if out == nil {
		return text, false
	}
	return append(out, text[last:]...), true
}

// keyBefore returns the key that ends just before the separator at sep,
// past an optional closing quote (\" inside a JSON string).
func keyBefore(text []byte, sep int, escapedQuotes bool) []byte {
	j := sep
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		j--
		if escapedQuotes && j > 0 && text[j-1] == '\\' {
			j--
		}
	}
	end := j
	for j > 0 && isKeyByte(text[j-1]) {
		j--
	}
	return text[j:end]
}

func isKeyByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// valueAfter finds the value following a separator. A quoted value spans
// its quotes (which stay); an unquoted one ends at a blank after "=", at the
// end of the line after ":", and always at a quote or, in raw JSON, at the
// backslash of an escape.
func valueAfter(text []byte, i int, sep byte, isJSON, inString bool) (start, end int, quoted bool) {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	if i >= len(text) {
		return i, i, false
	}
	switch {
	case isJSON && !inString && text[i] == '"':
		// A JSON member value: its contents, up to the closing quote.
		for j := i + 1; j < len(text); j++ {
			if text[j] == '\\' {
				j++
				continue
			}
			if text[j] == '"' {
				return i + 1, j, true
			}
		}
		return i, i, false
	case isJSON && !inString:
		// A number, literal, object or array member value.
		end, ok := skipValue(text, i)
		if !ok || end <= i {
			return i, i, false
		}
		return i, end, false
	case isJSON && text[i] == '\\' && i+1 < len(text) && text[i+1] == '"':
		// An escaped quote inside a JSON string: up to the next escaped
		// quote, stepping over other escapes, never past the string's end.
		for j := i + 2; j < len(text) && text[j] != '"'; j++ {
			if text[j] == '\\' && j+1 < len(text) {
				if text[j+1] == '"' {
					return i + 2, j, true
				}
				j++
			}
		}
		return i, i, false
	case !isJSON && (text[i] == '"' || text[i] == '\''):
		if k := bytes.IndexByte(text[i+1:], text[i]); k >= 0 {
			return i + 1, i + 1 + k, true
		}
	}
	j := i
	for j < len(text) {
		c := text[j]
		if c == '\n' || c == '\r' || c == '"' || c == '\'' || (isJSON && c == '\\') || (sep == '=' && (c == ' ' || c == '\t' || c == '&')) {
			break
		}
		j++
	}
	return i, j, false
}

// secretKeySuffixes end the names of secret-holding keys; each also matches
// alone, without its leading underscore.
var secretKeySuffixes = [...]string{
	"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIAL", "_CREDENTIALS",
	"_ACCESS_KEY", "_SECRET_KEY", "_PRIVATE_KEY",
}

// camelSecretSuffixes end camelCase secret names (accessToken,
// clientSecret, dbPassword).
var camelSecretSuffixes = [...]string{"Token", "Secret", "Password", "Passwd", "ApiKey", "APIKey", "Credential",
	"Credentials", "AccessKey", "SecretKey", "PrivateKey"}

// secretKey reports whether key names a secret.
func secretKey(key []byte) bool {
	if len(key) < 5 {
		return false
	}
	if foldKeyEqual(key, "AUTHORIZATION") || foldKeyEqual(key, "PROXY_AUTHORIZATION") ||
		foldKeyEqual(key, "COOKIE") || foldKeyEqual(key, "SET_COOKIE") {
		return true
	}
	for _, s := range camelSecretSuffixes {
		if n := len(key) - len(s); n > 0 && string(key[n:]) == s {
			if c := key[n-1]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				return true
			}
		}
	}
	for _, s := range secretKeySuffixes {
		if len(key) >= len(s) && foldKeyEqual(key[len(key)-len(s):], s) {
			return true
		}
		if foldKeyEqual(key, s[1:]) {
			return true
		}
	}
	return false
}

// foldKeyEqual compares a key with an upper-case name, case-insensitively
// and reading - as _.
func foldKeyEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		c := key[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		} else if c == '-' {
			c = '_'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}
