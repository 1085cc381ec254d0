package sidecar_test

import (
	"os"
	"testing"

	"github.com/paigasus/helikon/cli/starlarktool"
)

// TestMain lets validation run script tools' top levels, which happens
// in workers re-executed from this test binary.
func TestMain(m *testing.M) {
	starlarktool.WorkerMain()
	os.Exit(m.Run())
}
