package server_test

import (
	"testing"

	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/eventlogtest"
)

func TestMemoryLog_Conformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) server.EventLog { return server.NewMemoryLog() })
}
