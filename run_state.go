package helikon

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// RunStateVersion is the version of the [RunState] encoding this package
// writes and the only one it reads.
const RunStateVersion = 1

// The errors of pausing and resuming. Match them with errors.Is.
var (
	// ErrRunStateVersion reports a state written by a newer or unknown
	// encoding; its [*RunStateVersionError] names the version.
	ErrRunStateVersion = errors.New("helikon: unsupported run state version")
	// ErrRunStateTampered reports a state whose checksum or signature does
	// not match its content (edited, corrupted, or signed with another key).
	ErrRunStateTampered = errors.New("helikon: run state does not match its checksum or signature")
	// ErrUnknownApproval reports a decision naming an approval id the state
	// does not hold.
	ErrUnknownApproval = errors.New("helikon: unknown approval id")
	// ErrInvalidDecision reports a decision that cannot apply (an unknown
	// kind, replaced arguments that are not a JSON object, a bad rule).
	ErrInvalidDecision = errors.New("helikon: invalid decision")
	// ErrNotResumable reports a state resumed on an agent that did not
	// write it, or on an agent that cannot pause.
	ErrNotResumable = errors.New("helikon: state cannot resume on this agent")
	// ErrPaused is what [Collect] returns for a run that ended paused; the
	// error is a [*PausedError] carrying the state.
	ErrPaused = errors.New("helikon: run paused for approval")
)

// RunStateVersionError reports a [RunState] of a version this package does
// not read. It matches [ErrRunStateVersion].
type RunStateVersionError struct {
	Version int
}

// Error names the version.
func (e *RunStateVersionError) Error() string {
	return fmt.Sprintf("helikon: run state version %d is not supported (this build reads version %d)", e.Version, RunStateVersion)
}

// Is matches [ErrRunStateVersion].
func (e *RunStateVersionError) Is(target error) bool { return target == ErrRunStateVersion }

// PausedError is the error [Collect] returns for a paused run. It matches
// [ErrPaused].
type PausedError struct {
	State *RunState
}

// Error lists how many approvals the run waits for.
func (e *PausedError) Error() string {
	return fmt.Sprintf("helikon: run paused for approval: %d pending", len(e.State.Pending))
}

// Is matches [ErrPaused].
func (e *PausedError) Is(target error) bool { return target == ErrPaused }

// RunState is everything needed to continue a run that paused for
// approval ([RunPaused]) with [Resume]: the frozen loop of every agent on the
// path to each pending call, the calls of the paused round that already ran,
// the usage so far and the rules the run was granted. It marshals to
// versioned JSON; its Checksum covers everything else, a SHA-256 digest or,
// with a key ([WithRunStateKey]), an HMAC-SHA256 signature.
type RunState struct {
	// Version is [RunStateVersion].
	Version int `json:"version"`
	// RunID names the run across its pauses.
	RunID string `json:"run_id"`
	// PauseID names this pause, so a runner can resume each pause at most
	// once; a resumed run that pauses again gets a new one.
	PauseID string `json:"pause_id"`
	// Agent names the top-level agent; only that agent resumes the state.
	Agent string `json:"agent"`
	// Pending lists the calls awaiting a decision.
	Pending []PendingApproval `json:"pending"`
	// Usage is what the run spent before it paused.
	Usage Usage `json:"usage"`
	// Allow lists the allow rules "always" decisions granted the run, in
	// the form the run's [Granter] reads.
	Allow []string `json:"allow,omitempty"`
	// Checksum is "sha256:<hex>" or "hmac-sha256:<hex>" over the rest.
	Checksum string `json:"checksum"`

	root *PauseFrame
	// frameJSON is root encoded (compact), kept once computed or read, so
	// that sealing, encoding and verifying encode the frame at most once.
	frameJSON []byte
}

// PendingApproval is one tool call awaiting a human decision.
type PendingApproval struct {
	// ID is the approval id decisions name, kept while the call waits.
	ID string `json:"id"`
	// Agent is the agent whose loop made the call.
	Agent string `json:"agent"`
	// Path is the chain of agents from the top-level one to Agent.
	Path   []string `json:"path"`
	CallID string   `json:"call_id"`
	Tool   string   `json:"tool"`
	// Args are the call's arguments after secret redaction.
	Args json.RawMessage `json:"args"`
	// Prompt is the question put to the human.
	Prompt string `json:"prompt,omitempty"`
	// AskedBy names the rule or mode that asked ("guard <name>").
	AskedBy string `json:"asked_by"`
}

// PauseFrame is one agent's part of a paused run ([RunState]). Kind names
// the kind of agent that wrote it, the only kind that reads it back
// ([Resumer]). An LLM agent's frame holds its loop, the paused round and a
// paused handoff target's frame; a workflow's, its children, the run's
// input and, step by step, the paused step and iteration.
type PauseFrame struct {
	Kind  string `json:"kind"`
	Agent string `json:"agent"`
	// Usage is what the agent spent before the pause, without its paused
	// children's share: resumed, they report their whole runs again.
	Usage Usage `json:"usage"`
	llmFrame
	// Children are a workflow's sub-agents, in its own order.
	Children []ChildFrame `json:"children,omitempty"`
	// Input is the workflow run's input.
	Input []Item `json:"input,omitempty"`
	// Step and Iteration are where a step-by-step workflow paused.
	Step      int `json:"step,omitempty"`
	Iteration int `json:"iteration,omitempty"`
}

// llmFrame is an LLM agent's part of its [PauseFrame], encoded in line.
type llmFrame struct {
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	Round      []frameCall `json:"round,omitempty"`
	Handoff    *PauseFrame `json:"handoff,omitempty"`
}

// FrameLLM is the Kind of an LLM agent's [PauseFrame].
const FrameLLM = "llm"

// frameCall is one call of a paused round.
type frameCall struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Status is "done" (Result holds its result), "pending" (Approval
	// holds the request) or "nested" (an agent tool's run paused; Sub is
	// its frame).
	Status string `json:"status"`
	// Args are the arguments the call runs with once approved.
	Args     json.RawMessage  `json:"args,omitempty"`
	Result   *ToolResult      `json:"result,omitempty"`
	Approval *PendingApproval `json:"approval,omitempty"`
	Sub      *PauseFrame      `json:"sub,omitempty"`
}

// The frameCall statuses.
const (
	callDone    = "done"
	callPending = "pending"
	callNested  = "nested"
)

// ChildFrame is one sub-agent of a paused workflow.
type ChildFrame struct {
	// Key is the sub-agent's key in the workflow (a step key, a node name).
	Key string `json:"key"`
	// Status is [ChildDone], [ChildPaused] or [ChildPending].
	Status string `json:"status"`
	// Output is a finished child's final text.
	Output string `json:"output,omitempty"`
	Usage  Usage  `json:"usage"`
	// Frame is a paused child's own frame.
	Frame *PauseFrame `json:"frame,omitempty"`
}

// The ChildFrame statuses: finished (its output kept), paused (its frame
// kept) and not yet run.
const (
	ChildDone    = "done"
	ChildPaused  = "paused"
	ChildPending = "pending"
)

// pending appends the frame's pending approvals, with their path, to out.
func (f *PauseFrame) pending(path []string, out []PendingApproval) []PendingApproval {
	if f == nil {
		return out
	}
	path = append(path[:len(path):len(path)], f.Agent)
	for _, c := range f.Round {
		switch c.Status {
		case callPending:
			p := *c.Approval
			p.Path = path
			out = append(out, p)
		case callNested:
			out = c.Sub.pending(path, out)
		}
	}
	out = f.Handoff.pending(path, out)
	for _, ch := range f.Children {
		if ch.Status == ChildPaused {
			out = ch.Frame.pending(path, out)
		}
	}
	return out
}

// Frame returns the paused top-level agent's frame, which a parent that
// ran the agent as a child keeps in its own ([ChildFrame]).
func (s *RunState) Frame() *PauseFrame { return s.root }

type plainState RunState // the fields, encoded ahead of the frame

// MarshalJSON encodes the state: its fields, then "frame" last.
func (s *RunState) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal((*plainState)(s))
	if err != nil {
		return nil, err
	}
	if s.frameJSON == nil {
		if s.frameJSON, err = json.Marshal(s.root); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(head)+len(s.frameJSON)+10)
	out = append(out, head[:len(head)-1]...) // drop the closing brace
	out = append(out, `,"frame":`...)
	out = append(out, s.frameJSON...)
	return append(out, '}'), nil
}

// UnmarshalJSON decodes a state. A version other than [RunStateVersion]
// fails with a [*RunStateVersionError] before anything else is read.
func (s *RunState) UnmarshalJSON(data []byte) error {
	var st RunState
	b := struct {
		*plainState
		Frame json.RawMessage `json:"frame"`
	}{plainState: (*plainState)(&st)}
	err := json.Unmarshal(data, &b)
	// The version decides how to read the rest: it is checked first, even
	// when the rest did not decode.
	if err != nil {
		var v struct {
			Version *int `json:"version"`
		}
		if json.Unmarshal(data, &v) == nil && v.Version != nil && *v.Version != RunStateVersion {
			return &RunStateVersionError{Version: *v.Version}
		}
		return fmt.Errorf("helikon: run state: %w", err)
	}
	if st.Version != RunStateVersion { // a missing version reads as 0
		return &RunStateVersionError{Version: st.Version}
	}
	if len(b.Frame) == 0 || string(b.Frame) == "null" {
		return fmt.Errorf("helikon: run state: %w: no frame", ErrRunStateTampered)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b.Frame); err != nil {
		return fmt.Errorf("helikon: run state: %w", err)
	}
	st.frameJSON = compact.Bytes()
	if err := json.Unmarshal(st.frameJSON, &st.root); err != nil {
		return fmt.Errorf("helikon: run state: frame: %w", err)
	}
	*s = st
	return nil
}

// UnmarshalRunState decodes a state from JSON, refusing input larger than
// [MaxRunStateSize]. It checks the version, not the checksum: [Resume] does
// that with the run's key.
func UnmarshalRunState(data []byte) (*RunState, error) {
	if len(data) > MaxRunStateSize {
		return nil, fmt.Errorf("helikon: run state of %d bytes exceeds %d", len(data), MaxRunStateSize)
	}
	var s RunState
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// digest computes the state's checksum with key (nil: a plain SHA-256).
func (s *RunState) digest(key []byte) (string, error) {
	c := *s
	c.Checksum = ""
	data, err := c.MarshalJSON()
	s.frameJSON = c.frameJSON
	if err != nil {
		return "", err
	}
	if len(key) == 0 {
		sum := sha256.Sum256(data)
		return "sha256:" + hex.EncodeToString(sum[:]), nil
	}
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil)), nil
}

func (s *RunState) seal(key []byte) error {
	sum, err := s.digest(key)
	if err != nil {
		return err
	}
	s.Checksum = sum
	return nil
}

// verify checks the checksum against key. With a key, only a matching
// signature passes: a plain checksum is what anyone could compute.
func (s *RunState) verify(key []byte) error {
	if s == nil || s.root == nil {
		return fmt.Errorf("%w: empty state", ErrRunStateTampered)
	}
	want, err := s.digest(key)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRunStateTampered, err)
	}
	if !hmac.Equal([]byte(want), []byte(s.Checksum)) {
		return ErrRunStateTampered
	}
	return nil
}

// newID returns prefix followed by 16 random hex digits.
func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return prefix + hex.EncodeToString(b[:])
}

// WithRunStateKey makes the run sign the [RunState] of a pause with
// HMAC-SHA256 under key, and makes [Resume] accept only states signed with
// it. Without a key a state carries a SHA-256 checksum, which catches
// corruption and careless edits but not a deliberate forger, who can
// recompute it.
func WithRunStateKey(key []byte) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().stateKey = bytes.Clone(key) })
}

// errPauseUnsupported fails a child's run that paused where its parent
// does not look for a pause; every agent of this package looks.
var errPauseUnsupported = errors.New("helikon: a sub-agent paused for approval where the run cannot pause")
