package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/paigasus/helikon"
)

// Default step timeouts of a [Worker].
const (
	DefaultModelTimeout = 5 * time.Minute
	DefaultToolTimeout  = 10 * time.Minute
	DefaultStepTimeout  = time.Minute
)

// Worker serves durable agent runs from a task queue: it registers the
// agent-run workflow and its step activities, and the agents it can run,
// by name. Every worker on a queue must register the same agents with the
// same configuration, since any of them may replay any run.
type Worker struct {
	w   worker.Worker
	reg *registry
}

// WorkerOption configures a [Worker].
type WorkerOption func(*workerConfig)

type workerConfig struct {
	agents   []*helikon.LLMAgent
	posture  WorkerPosture
	factory  ContextFactory
	timeouts stepTimeouts
	opts     worker.Options
	// version is the worker deployment version WithDeploymentVersion set.
	version *worker.WorkerDeploymentVersion
}

// WithAgents registers agents the worker runs. Their handoff targets are
// registered with them, and so are the LLM agents of their agent tools
// ([helikon.AgentAsTool]), whose sub-runs run as child workflows.
func WithAgents(agents ...*helikon.LLMAgent) WorkerOption {
	return func(c *workerConfig) { c.agents = append(c.agents, agents...) }
}

// WithPosture sets the governance of every tool call the worker runs.
func WithPosture(p WorkerPosture) WorkerOption {
	return func(c *workerConfig) { c.posture = p }
}

// WithContextFactory sets how a run's seed becomes its user value.
func WithContextFactory(f ContextFactory) WorkerOption {
	return func(c *workerConfig) { c.factory = f }
}

// WithHeartbeat turns on heartbeats: a running step reports every d/2, and
// a step silent for d is retried on another worker. It reclaims a crashed
// worker's step in d rather than in its full timeout, but a step whose
// process is starved for d is retried too.
func WithHeartbeat(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.timeouts.heartbeat = d }
}

// WithStepTimeouts sets how long one model turn, one tool call and one of
// the other steps (instructions, hooks, guardrails) may run before
// Temporal retries it. Zero keeps a default.
func WithStepTimeouts(model, tool, other time.Duration) WorkerOption {
	return func(c *workerConfig) {
		if model > 0 {
			c.timeouts.model = model
		}
		if tool > 0 {
			c.timeouts.tool = tool
		}
		if other > 0 {
			c.timeouts.other = other
		}
	}
}

// WithToolAttempts caps how often the named tool's call is attempted. A
// call whose worker crashed is retried by Temporal, so a tool that is not
// idempotent should allow one attempt: its crashed call then reports a
// failure to the model instead of running twice. That guarantee is at most
// once: the failure the model sees does not say whether the function ran
// (it may have finished just before the crash). The server counts the
// attempts, so a capped tool's call is an activity even with
// [WithLocalActivities], where a local activity's count would not survive
// a crash. A run records the caps at its start (see [WithDeploymentVersion]
// for changing them).
func WithToolAttempts(tool string, attempts int) WorkerOption {
	return func(c *workerConfig) {
		if c.timeouts.toolAttempts == nil {
			c.timeouts.toolAttempts = map[string]int32{}
		}
		c.timeouts.toolAttempts[tool] = int32(attempts)
	}
}

// WithRetryInterval sets how long Temporal waits before it retries a
// failed or timed-out step the first time (default one second, doubling).
func WithRetryInterval(d time.Duration) WorkerOption {
	return func(c *workerConfig) { c.timeouts.retryInterval = d }
}

// WithLocalActivities runs model turns and tool calls as local activities:
// on the worker that runs the workflow's task, recorded in the history
// with the task that follows them, with no trip through the task queue.
// It cuts the time a durable run adds per turn (see docs/durable.md for
// the figures) at a cost in durability: the steps a workflow task ran
// locally are recorded when the task completes, which the worker does at
// the latest every few seconds (80% of the workflow task timeout, 10 s by
// default) while steps keep running, so a worker crash repeats the
// finished model turns and tool calls since the last recorded task, not
// only the interrupted one. A tool capped with [WithToolAttempts] still
// runs as an activity, so its cap holds across a crash. Heartbeats do not
// apply to local activities; a local step that outlives its timeout is
// retried by the same worker. Use it for agents whose model turns and
// tools are quick and safe to repeat. A run records its step mode at its
// start and keeps it on every worker that continues it, so switching a
// queue's workers to or from this mode affects new runs only (runs
// started before this release follow the worker's mode: drain them
// first).
func WithLocalActivities() WorkerOption {
	return func(c *workerConfig) { c.timeouts.local = true }
}

// WithLocalModelCalls runs model turns as local activities and tool calls
// as activities. A model turn then runs inside the workflow task that
// asked for it, and the tool calls the model made are scheduled by the
// same task, so a turn costs one workflow task instead of two. A turn is
// recorded when that task completes: when its tool calls are scheduled,
// or, for a turn that asked for no tool (an answer, a handoff, a reply
// that needs a repair turn), when the step after it (the finishing step,
// the handoff hook, the repair turn) is scheduled, which then runs as an
// activity rather than a local one. A crash thus repeats the model turn that was running, or
// the tool call that was running, and nothing that finished before
// (docs/durable.md has the crash tests). What changes is the model turn's
// retry: a crashed worker's turn is retried once its workflow task times
// out (10 s by default) by the worker that takes the task over,
// heartbeats do not apply to it, and a turn that runs longer than the
// workflow task's timeout holds the task open (the SDK keeps it alive with
// a new task every few seconds, each a few events in the history), so it
// suits models that answer in seconds. A run records its step mode at its
// start, as with [WithLocalActivities].
func WithLocalModelCalls() WorkerOption {
	return func(c *workerConfig) { c.timeouts.localModel = true }
}

// WithWorkerOptions sets the Temporal worker's own options (concurrency,
// rate limits, sticky cache). With worker versioning on in them
// (DeploymentOptions.UseVersioning) and no default versioning behavior,
// runs are pinned, as with [WithDeploymentVersion].
func WithWorkerOptions(o worker.Options) WorkerOption {
	return func(c *workerConfig) { c.opts = o }
}

// WithDeploymentVersion makes the worker a version (buildID) of a Temporal
// worker deployment (deployment) and pins the runs it starts to it: a run
// started on this version finishes on this version's workers, whatever
// the deployment's current version becomes, and new runs start on the
// current version. It is how to roll out an agent change a running run
// must not see (docs/durable.md, "Deploying agent changes"): start the
// new version's workers, make it current (temporal worker deployment
// set-current-version, or the client's WorkerDeploymentClient), and stop
// the old version's workers once its runs have drained. While no version
// is current, Temporal sends new runs to unversioned workers, so make the
// first version current when turning versioning on. It applies after
// [WithWorkerOptions], whose DeploymentOptions it replaces.
func WithDeploymentVersion(deployment, buildID string) WorkerOption {
	return func(c *workerConfig) {
		c.version = &worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: buildID}
	}
}

// NewWorker returns a worker for taskQueue on c. At least one agent is
// required; agents and handoff targets must be [*helikon.LLMAgent]s with
// distinct names.
func NewWorker(c client.Client, taskQueue string, opts ...WorkerOption) (*Worker, error) {
	if c == nil {
		return nil, errors.New("temporal: worker: client is required")
	}
	if taskQueue == "" {
		return nil, errors.New("temporal: worker: task queue is required")
	}
	cfg := workerConfig{timeouts: stepTimeouts{model: DefaultModelTimeout, tool: DefaultToolTimeout, other: DefaultStepTimeout}}
	for _, o := range opts {
		o(&cfg)
	}
	reg, err := newRegistry(cfg)
	if err != nil {
		return nil, err
	}
	if v := cfg.version; v != nil {
		if v.DeploymentName == "" || v.BuildID == "" {
			return nil, errors.New("temporal: worker: a deployment version needs a deployment name and a build id")
		}
		cfg.opts.DeploymentOptions = worker.DeploymentOptions{UseVersioning: true, Version: *v}
	}
	if d := &cfg.opts.DeploymentOptions; d.UseVersioning && d.DefaultVersioningBehavior == workflow.VersioningBehaviorUnspecified {
		d.DefaultVersioningBehavior = workflow.VersioningBehaviorPinned
	}
	w := worker.New(c, taskQueue, cfg.opts)
	register(w, reg, cfg.timeouts)
	return &Worker{w: w, reg: reg}, nil
}

// workflowRegistrar is what a worker, the test environment and a replayer
// share; registrar adds activities, which a replayer does not run.
type (
	workflowRegistrar interface {
		RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	}
	registrar interface {
		workflowRegistrar
		RegisterActivityWithOptions(a any, options activity.RegisterOptions)
	}
)

func registerWorkflow(r workflowRegistrar, reg *registry, t stepTimeouts) {
	wf := &agentWorkflow{reg: reg, timeouts: t}
	r.RegisterWorkflowWithOptions(wf.run, workflow.RegisterOptions{Name: WorkflowName})
}

func register(r registrar, reg *registry, t stepTimeouts) {
	registerWorkflow(r, reg, t)
	acts := &activities{reg: reg, heartbeat: t.heartbeat, children: true}
	r.RegisterActivityWithOptions(acts.StartRun, activity.RegisterOptions{Name: activityStartRun})
	r.RegisterActivityWithOptions(acts.CallModel, activity.RegisterOptions{Name: activityCallModel})
	r.RegisterActivityWithOptions(acts.InvokeTool, activity.RegisterOptions{Name: activityTool})
	r.RegisterActivityWithOptions(acts.Hook, activity.RegisterOptions{Name: activityHook})
	r.RegisterActivityWithOptions(acts.FinishRun, activity.RegisterOptions{Name: activityFinish})
	r.RegisterActivityWithOptions(acts.SettleSubRun, activity.RegisterOptions{Name: activitySettle})
}

func newRegistry(cfg workerConfig) (*registry, error) {
	if len(cfg.agents) == 0 {
		return nil, errors.New("temporal: worker: at least one agent is required")
	}
	reg := &registry{agents: map[string]*helikon.LLMAgent{}, posture: cfg.posture, factory: cfg.factory, subTools: map[string]*helikon.AgentTool{}}
	var add func(a *helikon.LLMAgent) error
	add = func(a *helikon.LLMAgent) error {
		if a == nil {
			return errors.New("temporal: worker: nil agent")
		}
		if prev, ok := reg.agents[a.Name()]; ok {
			if prev != a {
				return fmt.Errorf("temporal: worker: two agents are named %q", a.Name())
			}
			return nil
		}
		reg.agents[a.Name()] = a
		for _, h := range a.Handoffs() {
			target, ok := h.Agent.(*helikon.LLMAgent)
			if !ok {
				return fmt.Errorf("temporal: worker: agent %q hands off to %q, a %T; a durable handoff target must be an LLM agent", a.Name(), h.Agent.Name(), h.Agent)
			}
			if err := add(target); err != nil {
				return err
			}
		}
		// An agent tool over an LLM agent runs its sub-run as a child
		// workflow; any other agent runs inside the tool's activity.
		for _, t := range a.Tools() {
			at, ok := t.(*helikon.AgentTool)
			if !ok {
				continue
			}
			sub, ok := at.Agent().(*helikon.LLMAgent)
			if !ok {
				continue
			}
			if err := add(sub); err != nil {
				return err
			}
			reg.subTools[subKey(a.Name(), at.Name())] = at
		}
		return nil
	}
	for _, a := range cfg.agents {
		if err := add(a); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Start starts serving the task queue; it returns once the worker polls.
func (w *Worker) Start() error { return w.w.Start() }

// Stop stops the worker, letting running steps finish within the worker's
// stop timeout.
func (w *Worker) Stop() { w.w.Stop() }
