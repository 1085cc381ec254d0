package helikon_test

import (
	"os/exec"
	"strings"
	"testing"
)

// allowedClosure lists the only non-standard packages the core may pull in:
// the JSON-Schema library, the OpenTelemetry API (with the small logging,
// auto-instrumentation and hashing modules it depends on: otel/attribute
// hashes attribute sets with xxhash). The shell parser the permission
// layer reads compound commands with is not among them: only a program
// that imports governance/shellsyntax (tools/bash does) links it.
var allowedClosure = []string{
	"github.com/paigasus/helikon",
	"github.com/google/jsonschema-go/",
	"go.opentelemetry.io/otel",
	"go.opentelemetry.io/auto/sdk",
	"github.com/go-logr/logr",
	"github.com/go-logr/stdr",
	"github.com/cespare/xxhash/v2",
}

func TestCore_ImportClosureIsSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "github.com/paigasus/helikon").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		ok := false
		for _, prefix := range allowedClosure {
			if pkg == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(pkg, prefix) {
				ok = true
				break
			}
		}
		if !ok {
			t.Errorf("the core package imports %s, which is outside its allowed closure", pkg)
		}
	}
}
