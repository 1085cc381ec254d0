package bedrock_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPackage_LinksNoSDKServiceClient: the adapter builds, signs and sends
// ConverseStream itself, so a program that names it links none of
// aws-sdk-go-v2's service clients (bedrockruntime's schemas and endpoint
// rules were 462 KB allocated at every start and 1.5 MB of the binary);
// the SDK's bedrockruntime client is a test-only reference.
func TestPackage_LinksNoSDKServiceClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/") || strings.HasPrefix(pkg, "github.com/aws/aws-sdk-go-v2/config") {
			t.Errorf("provider/bedrock links %s", pkg)
		}
	}
}
