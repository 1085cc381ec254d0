package runner_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/runner"
)

// This test binary installs a global provider, as programs do; the core's
// own tests never do, so they also cover the untraced path.
func TestRunner_SpansGoToTheGlobalTracerProviderInstalledAtRunTime(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr)))
	if _, err := runner.New().Run(context.Background(), newAgent(t, s1Model()), nil, helikon.UserText("go")); err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, s := range sr.Ended() {
		names[s.Name()]++
	}
	if names["invoke_agent calc"] != 1 || names["agent.turn"] != 2 || names["chat mock"] != 2 || names["execute_tool add"] != 1 {
		t.Fatalf("spans %v", names)
	}
}
