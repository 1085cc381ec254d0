package helikon_test

import (
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/sessiontest"
)

func TestMemorySession_Conformance(t *testing.T) {
	sessiontest.Run(t, func(*testing.T) helikon.Session { return helikon.NewMemorySession() })
}
