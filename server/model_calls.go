package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// ModelCalls is the answer of GET /agents/{name}/runs/{id}/calls: what a
// run's model calls were given, for a run started with capture=calls.
type ModelCalls struct {
	Captured  bool        `json:"captured" jsonschema:"false when the run was started without capture=calls or its record was evicted (the server keeps the newest runs' only)"`
	Truncated bool        `json:"truncated,omitempty" jsonschema:"the run made more calls than the server keeps per run: the later ones are missing"`
	Calls     []ModelCall `json:"calls" jsonschema:"the model calls, in the order they were made"`
}

// ModelCall is one model call of a run: the request exactly as the loop
// gave it to the model, secrets redacted by the run's redactor.
type ModelCall struct {
	Index int       `json:"index" jsonschema:"the call's position in the run, from 0: what a fork names"`
	Agent string    `json:"agent" jsonschema:"the agent whose loop called the model"`
	Depth int       `json:"depth" jsonschema:"0 for the run's own agent; more for handoff targets, agent tools and workflow children"`
	Turn  int       `json:"turn" jsonschema:"the agent's turn, from 1"`
	Model string    `json:"model,omitempty" jsonschema:"the model's id"`
	At    time.Time `json:"at" jsonschema:"when the model was called (RFC 3339)"`
	// Request is what the model got.
	Request  CallRequest `json:"request"`
	Forkable bool        `json:"forkable" jsonschema:"the run can be forked at the turn boundary before this call (POST .../fork)"`
}

// CallRequest is a model request: the rendered instructions, the messages
// after compaction and projection, the tool definitions and the settings.
type CallRequest struct {
	Instructions []string        `json:"instructions,omitempty" jsonschema:"the system messages ahead of the conversation"`
	Messages     []helikon.Item  `json:"messages" jsonschema:"the conversation as the model got it"`
	Tools        []CallTool      `json:"tools,omitempty" jsonschema:"the tools offered"`
	Settings     json.RawMessage `json:"settings,omitempty" jsonschema:"the settings that are set: temperature, top_p, max_output_tokens, tool_choice, parallel_tool_calls, response_format (with its schema), reasoning_effort"`
}

// CallTool is a tool definition a model was offered.
type CallTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty" jsonschema:"the JSON Schema of the arguments"`
}

// The bounds of the model-call store: the newest runs' calls only, and a
// run's up to a size.
const (
	maxCapturedRuns     = 64
	maxCapturedCalls    = 512
	maxCapturedRunBytes = 8 << 20
	// maxCapturedOwnerRuns and maxCapturedOwnerBytes are one principal's
	// share of the store: past them a principal's new captures push out
	// or truncate its own, never another's.
	maxCapturedOwnerRuns  = 16
	maxCapturedOwnerBytes = 32 << 20
	// maxCapturedBytes bounds the store as a whole: a call that would
	// pass it is not kept (its run reads as truncated).
	maxCapturedBytes = 128 << 20
)

// callStore keeps the model calls of the runs started with capture=calls:
// the redacted requests the calls route serves and, for the top-level
// agent's calls, the checkpoint a fork resumes (unredacted: it is the
// run's own state, as its session is). It is bounded: the newest
// maxCapturedRuns runs, each to maxCapturedCalls calls and
// maxCapturedRunBytes, each principal to maxCapturedOwnerRuns runs and
// maxCapturedOwnerBytes, all to maxCapturedBytes; it lives in the server's
// memory only. A principal's captures evict only its own: one caller
// starting many captured runs cannot push out another's (red team, 17:51).
type callStore struct {
	mu     sync.Mutex
	runs   map[string]*capturedRun
	order  []string // run ids, oldest first
	owners map[string]*ownerShare
	bytes  int
	enc    mock.RequestEncoder
}

// ownerShare is what one principal holds in the store.
type ownerShare struct {
	runs, bytes int
}

type capturedRun struct {
	owner     string
	calls     []ModelCall
	points    [][]byte // checkpoint JSON per call; nil where not forkable
	bytes     int
	truncated bool
}

// observer starts keeping run id's calls (or goes on, for a run resumed
// after a pause) and returns the observer that feeds them, redacting with
// the run's redactor.
func (st *callStore) observer(id, owner string, red helikon.Redactor) func(context.Context, *helikon.ModelCall) {
	st.mu.Lock()
	if st.runs == nil {
		st.runs = make(map[string]*capturedRun)
		st.owners = make(map[string]*ownerShare)
	}
	run := st.runs[id]
	if run == nil {
		if sh := st.owners[owner]; sh != nil && sh.runs >= maxCapturedOwnerRuns {
			st.evictOldest(func(r *capturedRun) bool { return r.owner == owner })
		}
		if len(st.order) >= maxCapturedRuns {
			st.evictOldest(st.largestShare())
		}
		share := st.owners[owner] // after the evictions, which may drop it
		if share == nil {
			share = &ownerShare{}
			st.owners[owner] = share
		}
		run = &capturedRun{owner: owner}
		st.runs[id] = run
		st.order = append(st.order, id)
		share.runs++
	}
	st.mu.Unlock()
	if red == nil {
		red = helikon.NewRunContext().Redactor()
	}
	return func(_ context.Context, c *helikon.ModelCall) {
		if st.stopped(id, run) {
			// The calls kept are a prefix of the run's: past the first
			// one dropped, none is kept, nor encoded (in a long tool
			// loop each call carries the whole conversation).
			return
		}
		at := time.Now().UTC()
		req, err := st.enc.Encode(c.Request)
		if err != nil {
			return // a schema that does not encode: the call goes on unshown
		}
		record.RedactRequest(red, req)
		call := ModelCall{Agent: c.Agent, Depth: c.Depth, Turn: c.Turn, Model: c.Model, At: at,
			Request: CallRequest{Instructions: req.Instructions, Messages: req.Messages, Settings: req.Settings}}
		size := 0
		for _, t := range req.Tools {
			call.Request.Tools = append(call.Request.Tools, CallTool(t))
			size += len(t.Parameters) + len(t.Description)
		}
		var point []byte
		if c.Depth == 0 && c.Checkpoint != nil {
			// Marshalled now: the conversation is the loop's, valid
			// during the call only.
			point, _ = json.Marshal(c.Checkpoint)
		}
		call.Forkable = point != nil
		msgs, _ := json.Marshal(req.Messages)
		size += len(msgs) + len(point) + len(req.Settings)
		for _, s := range req.Instructions {
			size += len(s)
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		share := st.owners[run.owner]
		if st.runs[id] != run || share == nil || run.truncated {
			return // evicted or truncated while the call was being encoded
		}
		if len(run.calls) >= maxCapturedCalls || run.bytes+size > maxCapturedRunBytes ||
			share.bytes+size > maxCapturedOwnerBytes || st.bytes+size > maxCapturedBytes {
			run.truncated = true
			return
		}
		call.Index = len(run.calls)
		run.calls = append(run.calls, call)
		run.points = append(run.points, point)
		run.bytes += size
		share.bytes += size
		st.bytes += size
	}
}

// stopped reports whether run, the capture of run id, keeps no more calls:
// it was evicted or truncated.
func (st *callStore) stopped(id string, run *capturedRun) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.runs[id] != run || run.truncated
}

// largestShare returns a test for the runs of the principal holding the
// most runs, so that a full store makes room at the cost of whoever fills
// it most.
func (st *callStore) largestShare() func(*capturedRun) bool {
	top, n := "", -1
	for o, sh := range st.owners {
		if sh.runs > n {
			top, n = o, sh.runs
		}
	}
	return func(r *capturedRun) bool { return r.owner == top }
}

// evictOldest drops the oldest run that match accepts. st.mu is held.
func (st *callStore) evictOldest(match func(*capturedRun) bool) {
	for i, id := range st.order {
		r := st.runs[id]
		if !match(r) {
			continue
		}
		st.order = append(st.order[:i:i], st.order[i+1:]...)
		delete(st.runs, id)
		st.bytes -= r.bytes
		if sh := st.owners[r.owner]; sh != nil {
			sh.runs--
			sh.bytes -= r.bytes
			if sh.runs == 0 {
				delete(st.owners, r.owner)
			}
		}
		return
	}
}

// list returns run id's calls.
func (st *callStore) list(id string) ModelCalls {
	st.mu.Lock()
	defer st.mu.Unlock()
	run := st.runs[id]
	if run == nil {
		return ModelCalls{Calls: []ModelCall{}}
	}
	return ModelCalls{Captured: true, Truncated: run.truncated, Calls: append([]ModelCall{}, run.calls...)}
}

// kept reports whether run id's calls are being kept.
func (st *callStore) kept(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.runs[id] != nil
}

// point returns the checkpoint before run id's call i, and the call.
func (st *callStore) point(id string, i int) ([]byte, ModelCall, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	run := st.runs[id]
	if run == nil || i < 0 || i >= len(run.calls) || run.points[i] == nil {
		return nil, ModelCall{}, false
	}
	return run.points[i], run.calls[i], true
}

// wantsCalls reports whether a run's start asks to keep its model calls.
func wantsCalls(r *http.Request) (bool, *Error) {
	switch r.URL.Query().Get("capture") {
	case "":
		return false, nil
	case "calls":
		return true, nil
	}
	return false, errorf(http.StatusBadRequest, CodeBadRequest, "capture", "capture must be calls")
}

// capture makes the run id, owned by owner, keep its model calls, on rc's
// copy.
func (s *Server) capture(id, owner string, rc *helikon.RunContext) *helikon.RunContext {
	return rc.Derive(helikon.WithModelCallObserver(s.calls.observer(id, owner, rc.Redactor())))
}

func (s *Server) listCalls(w http.ResponseWriter, r *http.Request) {
	if info, ok := s.runOf(w, r); ok {
		writeJSON(w, http.StatusOK, s.calls.list(info.ID))
	}
}

// debugPaths are the OpenAPI paths of the debugging routes: a run's model
// calls and its forks.
func debugPaths(name, id obj) obj {
	return obj{
		"/agents/{name}/runs/{id}/calls": obj{"get": obj{
			"operationId": "listCalls", "summary": "What each model call of a run was given",
			"description": "For a run started with capture=calls (and its forks): every model call's request exactly as the loop gave it to the model — instructions, the messages after compaction and projection, the tool definitions with their schemas, the settings — with secrets redacted by the run's redactor. The server keeps the calls of its newest 64 runs in memory, up to 512 calls and 8 MiB a run; other runs answer captured: false.",
			"parameters":  []any{name, id},
			"responses": responses(obj{"200": obj{"description": "the run's model calls", "headers": runIDHeader,
				"content": jsonBody("ModelCalls")}}, "404", "503"),
		}},
		"/agents/{name}/runs/{id}/fork": obj{"post": obj{
			"operationId": "forkRun", "summary": "Fork a run at a turn boundary into a new run",
			"description": "Starts a new run (in the background, on a new session unless X-Session-Id names one that is empty) from the turn boundary before a forkable model call of the run (GET .../calls), with the next user message, tool results or (on a server with the dev UI) the instructions edited. Nothing before the boundary runs again, and the original run is not touched. The new run's record names its origin in fork_of; it keeps its own calls.",
			"parameters": []any{name, id,
				obj{"name": "X-Session-Id", "in": "header", "description": "the fork's session (default: a new one)", "schema": obj{"type": "string", "maxLength": 256}}},
			"requestBody": obj{"required": true, "content": jsonBody("ForkRequest")},
			"responses": responses(obj{"202": obj{"description": "the fork started", "headers": runIDHeader,
				"content": jsonBody("RunAccepted")}}, "400", "404", "408", "409", "413", "429", "500", "503"),
		}},
	}
}
