package starlarktool_test

import (
	"os"
	"testing"

	"github.com/paigasus/helikon/cli/starlarktool"
)

// noHookEnv makes TestMain leave the hook out, as a program that forgot
// it would.
const noHookEnv = "STARLARKTOOL_TEST_NO_HOOK"

// TestMain makes the test binary able to serve as its own script worker,
// as a program's main must.
func TestMain(m *testing.M) {
	if os.Getenv(noHookEnv) == "" {
		starlarktool.WorkerMain()
	}
	os.Exit(m.Run())
}
