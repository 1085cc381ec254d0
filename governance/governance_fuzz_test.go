package governance

import (
	"context"
	"encoding/json"
	"github.com/paigasus/helikon"
	"path"
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/shellmatch"
)

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzPathGlob_Invariants: matching never panics; an allow match is always a
// deny match (deny rules fail closed, allow rules fail open); matching is
// case-insensitive; and .. is collapsed, so a detour changes nothing.
func FuzzPathGlob_Invariants(f *testing.F) {
	for _, s := range [][2]string{
		{".env", "a/.env"}, {"src/**", "src/a.go"}, {"//etc/**", "/etc/x"}, {"*.pem", "K.PEM"},
		{"[a-", "[a-"}, {"**/**", "a"}, {"a/**/b", "a/b"}, {`\*`, "*"}, {"", ""}, {"/", "/"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		if len(pattern) > 64 || strings.Count(pattern, "**") > 4 {
			return // keep the recursive ** matcher's work bounded
		}
		g := compileGlob(pattern)
		allow, deny := g.match(p, false), g.match(p, true)
		if allow && !deny {
			t.Fatalf("%q vs %q: allow matched but deny did not", pattern, p)
		}
		if isASCII(pattern) && isASCII(p) {
			if up := compileGlob(strings.ToUpper(pattern)).match(strings.ToUpper(p), true); up != deny {
				t.Fatalf("%q vs %q: case changed the match", pattern, p)
			}
		}
		if p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(pattern, "..") {
			detour := path.Join("detour", "..", p)
			if got := g.match(detour, true); got != deny {
				t.Fatalf("%q vs %q: the detour %q changed the match", pattern, p, detour)
			}
		}
	})
}

// FuzzPermission_DenyBashHoldsUnderBypass: a DenyBash("rm") refuses every
// seed bypass form under Bypass, whatever argument rides along.
func FuzzPermission_DenyBashHoldsUnderBypass(f *testing.F) {
	forms := []string{
		"echo %s && rm -rf .", "sudo rm -rf / %s", "bash -c 'rm -rf /' %s", "echo $(rm -rf / %s)",
		"echo `rm -rf / %s`", "timeout 5 rm %s", "env -S 'rm -rf /' %s", "x=%s; rm x", `bash -c "rm -rf $HOME" %s`,
	}
	for _, s := range []string{"ok", "'", `"`, "\\", "$(", "\n", "\x00", "é"} {
		f.Add(s)
	}
	rc := helikon.NewRunContext(WithPermissionMode(PermissionBypass), WithDenyRules(DenyBash("rm")), WithoutDefaultGuards())
	f.Fuzz(func(t *testing.T, arg string) {
		quoted := "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
		for _, form := range forms {
			cmd := strings.Replace(form, "%s", quoted, 1)
			args, _ := json.Marshal(map[string]string{"command": cmd})
			if a := authorize(rc, context.Background(), helikon.PermissionRequest{Tool: "Bash", Args: args}); a.allowed {
				t.Fatalf("%q was allowed under a DenyBash(rm)", cmd)
			}
		}
	})
}

// FuzzRedact_KeepsJSONValid: redacting valid JSON output yields valid JSON,
// and a known secret never survives in output encoding/json produced (the
// value scan matches the raw and the encoding/json-escaped forms, not every
// possible \u spelling).
func FuzzRedact_KeepsJSONValid(f *testing.F) {
	for _, s := range []string{
		`{"api_key":"x"}`, `"DB_PASSWORD=hunter2\nnext"`, `{"a_token":[1,{"b":2}]}`, `"X_SECRET=\"a b\""`,
		`{"x-api-key": 12}`, `[":=", "TOKEN:"]`, `"secret-value-123"`, `{"authorization":"Bearer z"}`,
		// Issue 10's leaks: nested, \/- and \u-escaped values, block scalars,
		// PEM blocks, camelCase keys, URL passwords, cookies.
		`"{\"note\":\"secret-value-123\"}"`, `"secret-value-123"`,
		`"\u0073\u0065\u0063\u0072\u0065\u0074\u002d\u0076\u0061\u006c\u0075\u0065\u002d\u0031\u0032\u0033"`,
		`"key: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIE\n  -----END RSA PRIVATE KEY-----\nport: 1"`,
		`{"accessToken":"a-b-c","clientSecret":{"x":[1,2]}}`, `"postgres://u:pw-in-url@h/db"`,
		`"Cookie: a=b; c=d\nSet-Cookie: e=f"`, `"private_key: >-\n  a\n\n  b\nx: |"`, `"-----BEGIN PRIVATE KEY-----"`,
	} {
		f.Add(s)
	}
	r := &redactor{extra: []string{"secret-value-123", `with"quote\and<html>`}}
	r.once.Do(r.load)
	f.Fuzz(func(t *testing.T, in string) {
		canonical, _ := json.Marshal(in)
		for i, doc := range []string{in, string(canonical)} {
			if !json.Valid([]byte(doc)) {
				continue
			}
			out, _ := r.scrub([]byte(doc), true)
			if !json.Valid(out) {
				t.Fatalf("redacting %s gave invalid JSON %s", doc, out)
			}
			var v string
			if i == 1 && json.Unmarshal(out, &v) == nil && strings.Contains(v, "secret-value-123") {
				t.Fatalf("known secret survived in %s", out)
			}
		}
	})
}

// FuzzRedTeam_CorpusHoldsWithAnyArgument: no red-team row the deny rules
// or guards stop becomes allowed when a quoted argument of any content runs
// before it. The seeds run every row as a unit test.
func FuzzRedTeam_CorpusHoldsWithAnyArgument(f *testing.F) {
	for _, s := range []string{"ok", "'", `"`, "\\", "$(", "\n", "\x00", "é", "EOF", "}", ")", "`", "--", "*"} {
		f.Add(s)
	}
	var rows []redRow
	for _, r := range redTeamCorpus() {
		if r.want != "allow" {
			rows = append(rows, r)
		}
	}
	f.Fuzz(func(t *testing.T, arg string) {
		quoted := "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
		for _, r := range rows {
			cmd := "echo " + quoted + " && " + r.cmd
			if got, _ := judge(r.cfg, cmd); got == "allow" {
				t.Fatalf("[%c] %q was allowed", r.cfg, cmd)
			}
		}
	})
}

// FuzzPermission_LargeAndDeepInputsNeverCrash: a command built by
// repeating any unit up to hundreds of kilobytes, nested or chained, is
// judged without crashing or stalling, and one past the size bound is never
// allowed where a rule or guard applies.
func FuzzPermission_LargeAndDeepInputsNeverCrash(f *testing.F) {
	for _, u := range []string{"(", "$(", "{ ", "if true; then ", "ls && ", "nice ", "$((1+", "`", `"$(`, "${a:-",
		"[[ ", "! ", "bash -c '", "eval ", "a=(", "<(", "sudo ", "x|", "\\(", "'", "case x in x) "} {
		f.Add(u, uint16(50), false)
		f.Add(u, uint16(60000), true)
	}
	rc := helikon.NewRunContext(WithDenyRules(DenyBash("rm")))
	f.Fuzz(func(t *testing.T, unit string, n uint16, close bool) {
		if unit == "" {
			return
		}
		reps := min(int(n), 400<<10/len(unit))
		cmd := strings.Repeat(unit, reps) + "rm -rf /"
		if close {
			cmd += strings.Repeat(")", reps)
		}
		args, _ := json.Marshal(map[string]string{"command": cmd})
		a := authorize(rc, context.Background(), helikon.PermissionRequest{Tool: "Bash", Args: args})
		if len(cmd) > shellmatch.MaxLen && a.allowed {
			t.Fatalf("a %d-byte command was allowed", len(cmd))
		}
	})
}
