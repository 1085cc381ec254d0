package envmodel

import (
	"errors"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/provider/anthropic"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/openai"
)

func TestSelect_FromHELIKON_PROVIDER(t *testing.T) {
	tests := []struct {
		provider, key, keyVar string
		wantProvider          string
		wantErr               error
		errMentions           string
	}{
		{provider: "", wantProvider: "mock"},
		{provider: "mock", wantProvider: "mock"},
		{provider: "openai", keyVar: "OPENAI_API_KEY", key: "sk-test", wantProvider: "openai"},
		{provider: "anthropic", keyVar: "ANTHROPIC_API_KEY", key: "sk-ant-test", wantProvider: "anthropic"},
		{provider: "openai", keyVar: "OPENAI_API_KEY", wantErr: openai.ErrNoAPIKey, errMentions: "OPENAI_API_KEY"},
		{provider: "anthropic", keyVar: "ANTHROPIC_API_KEY", wantErr: anthropic.ErrNoAPIKey, errMentions: "ANTHROPIC_API_KEY"},
		{provider: "gemini", keyVar: "GEMINI_API_KEY", key: "AIza-test", wantProvider: "gemini"},
		{provider: "gemini", keyVar: "GOOGLE_API_KEY", key: "AIza-test", wantProvider: "gemini"},
		{provider: "gemini", keyVar: "GEMINI_API_KEY", wantErr: gemini.ErrNoAPIKey, errMentions: "GEMINI_API_KEY"},
		{provider: "bedrock", keyVar: "AWS_REGION", key: "us-east-1", wantProvider: "bedrock"},
		{provider: "bedrock", keyVar: "AWS_REGION", wantErr: bedrock.ErrNoRegion, errMentions: "AWS_REGION"},
		{provider: "watsonx", errMentions: "unknown provider"},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.keyVar+"/"+tt.key, func(t *testing.T) {
			t.Setenv("HELIKON_PROVIDER", tt.provider)
			t.Setenv("OPENAI_BASE_URL", "")
			t.Setenv("OPENAI_API_KEY", "")
			t.Setenv("ANTHROPIC_API_KEY", "")
			t.Setenv("GEMINI_API_KEY", "")
			t.Setenv("GOOGLE_API_KEY", "")
			for _, v := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"} {
				t.Setenv(v, "")
			}
			t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
			if tt.keyVar != "" {
				t.Setenv(tt.keyVar, tt.key)
			}
			m, err := Select(mock.Scripted())
			if builtWithout(t, tt.provider) {
				var omitted *OmittedError
				if !errors.As(err, &omitted) || omitted.Provider != tt.provider ||
					!strings.Contains(err.Error(), "-tags no"+tt.provider) || !strings.Contains(err.Error(), "HELIKON_PROVIDER="+tt.provider) {
					t.Fatalf("err = %v, want an *OmittedError naming -tags no%s", err, tt.provider)
				}
				if m != nil {
					t.Error("a model came back with the error")
				}
				return
			}
			if tt.errMentions != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errMentions) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("err = %v, want one naming %s", err, tt.errMentions)
				}
				if m != nil {
					t.Error("a model came back with the error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p, _ := helikon.DescribeModel(m); p != tt.wantProvider {
				t.Errorf("provider = %s, want %s", p, tt.wantProvider)
			}
		})
	}
}

func TestPicker_MockPerAgentOrOneModelForAll(t *testing.T) {
	a, b := mock.Scripted(mock.Text("a")), mock.Scripted(mock.Text("b"))
	t.Setenv("HELIKON_PROVIDER", "")
	pick, err := Picker()
	if err != nil {
		t.Fatal(err)
	}
	if pick(a) != a || pick(b) != b {
		t.Error("with no provider, each agent must get its own mock back")
	}
	if builtWithout(t, "gemini") {
		t.Skip("built with -tags nogemini: no provider to share")
	}
	t.Setenv("HELIKON_PROVIDER", "gemini")
	t.Setenv("GEMINI_API_KEY", "AIza-test")
	if pick, err = Picker(); err != nil {
		t.Fatal(err)
	}
	if m := pick(a); m != pick(b) || m == helikon.Model(a) {
		t.Error("with a provider, every agent must share its one model")
	} else if p, _ := helikon.DescribeModel(m); p != "gemini" {
		t.Errorf("provider = %s, want gemini", p)
	}
}

// TestSelect_ProviderTagsLeaveTheirProvidersOut runs the table above in a
// build with every provider's tag, so the omitted side is checked too.
func TestSelect_ProviderTagsLeaveTheirProvidersOut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package's tests again with -tags")
	}
	const tags = "noopenai,noanthropic,nogemini,nobedrock"
	cmd := exec.Command("go", "test", "-count=1", "-tags", tags, "-run", "^TestSelect_FromHELIKON_PROVIDER$", "-v", ".")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test -tags %s: %v\n%s", tags, err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestSelect_FromHELIKON_PROVIDER/bedrock/AWS_REGION/us-east-1") {
		t.Fatalf("the tagged run did not run the table:\n%s", out)
	}
}

// builtWithout reports whether this test binary was built with the tag
// that leaves provider out, so each row checks the side the build has.
func builtWithout(t *testing.T, provider string) bool {
	t.Helper()
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build info in the test binary")
	}
	for _, s := range bi.Settings {
		if s.Key == "-tags" {
			return slices.Contains(strings.Split(s.Value, ","), "no"+provider)
		}
	}
	return false
}
