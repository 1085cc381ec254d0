package temporal

import (
	"log/slog"
	"time"

	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
)

// testDeadlockDetection bounds how long a workflow task's goroutine may
// run without yielding in the SDK's test environment. The SDK's default
// is one second, and it fails the workflow outright (TMPRL1101). Under
// -race on a loaded 2-core CI machine (load 17) the first workflow task of
// TestWorkflow_AgentToolRunsAsAChildWorkflow took longer than that on
// 2026-12-03: the machine's speed, not a deadlock. A real deadlock still
// fails, later.
const testDeadlockDetection = time.Minute

// newTestEnv returns the SDK's test workflow environment with its logs
// discarded and the deadlock detector at testDeadlockDetection.
func newTestEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: testDeadlockDetection})
	return env
}
