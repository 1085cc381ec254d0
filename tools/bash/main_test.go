package bash

import (
	"os"
	"testing"
)

// TestMain makes the test binary its own launcher, as a program's main
// must.
func TestMain(m *testing.M) {
	LauncherMain()
	os.Exit(m.Run())
}
