package server

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon"
)

// RunAccepted is the 202 body of an async run.
type RunAccepted struct {
	RunID string `json:"run_id" jsonschema:"the run id (a UUID), also in the X-Run-Id header"`
	// Status is running, or queued while another run of the session
	// holds it.
	Status RunStatus `json:"status" jsonschema:"running, or queued while another run of its session (X-Session-Id) holds the session"`
	Links  RunLinks  `json:"links" jsonschema:"where to follow the run, relative to the request URL"`
}

// RunLinks are a run's routes, as references relative to the URL the run
// was started at, so they hold under any mount prefix.
type RunLinks struct {
	Self   string `json:"self" jsonschema:"GET: the run's status and result"`
	Events string `json:"events" jsonschema:"GET: the run's events (SSE or WebSocket)"`
	Cancel string `json:"cancel" jsonschema:"POST: cancel the run"`
}

// mode is how POST /agents/{name}/runs answers.
type mode int

const (
	oneShot mode = iota
	sse
	async
)

func runMode(r *http.Request) (mode, *Error) {
	q := r.URL.Query()
	st, md := q.Get("stream"), q.Get("mode")
	switch {
	case st != "" && st != "sse":
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, "stream", "stream must be sse")
	case md != "" && md != "async":
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, "mode", "mode must be async")
	case st != "" && md != "":
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, "mode", "choose stream=sse or mode=async, not both")
	case st == "sse":
		return sse, nil
	case md == "async":
		return async, nil
	}
	return oneShot, nil
}

func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if _, ok := s.agents[name]; !ok {
		writeError(w, agentNotFound(name))
		return
	}
	md, e := runMode(r)
	if e != nil {
		writeError(w, e)
		return
	}
	keepCalls, e := wantsCalls(r)
	if e != nil {
		writeError(w, e)
		return
	}
	q, e := decodeBody[RunRequest](w, r, s.limits)
	if e != nil {
		writeError(w, e)
		return
	}
	input, e := q.items()
	if e != nil {
		writeError(w, e)
		return
	}
	sessionID, e := sessionHeader(r)
	if e != nil {
		writeError(w, e)
		return
	}

	agent, e := s.agentFor(r, name)
	if e != nil {
		writeError(w, e)
		return
	}
	owner := PrincipalOf(r.Context()).ID
	adm, rc, e := s.openRun(r, owner, scopedSession(owner, sessionID))
	if e != nil {
		writeError(w, e)
		return
	}
	defer adm.release()

	id := uuid.NewString()
	w.Header().Set("X-Run-Id", id)
	info := RunInfo{ID: id, Agent: name, Status: adm.status(), Owner: owner, SessionID: sessionID,
		Input: inputRecord(&q), CreatedAt: time.Now().UTC()}
	if err := s.log.Create(r.Context(), info); err != nil {
		writeError(w, s.unavailable("create run", err))
		return
	}
	lr, ctx, ok := s.begin(w, r, info, adm)
	if !ok {
		return
	}
	if md != async {
		// The client's disconnect cancels a run it is waiting on; an
		// async run outlives its request.
		stop := context.AfterFunc(r.Context(), lr.cancel)
		defer stop()
	}
	if keepCalls {
		rc = s.capture(id, owner, rc)
	}
	events := s.runner.RunStreamed(ctx, agent, rc, input)
	if md == oneShot {
		// The handler would only wait for the run: it drives it
		// itself, saving a goroutine and a wake-up per run.
		s.drive(ctx, lr, info, events, 0, adm)
	} else {
		go s.drive(ctx, lr, info, events, 0, adm)
	}

	switch md {
	case async:
		writeAccepted(w, id, info.Status, "runs/"+id) // relative to .../agents/{name}/runs
	case sse:
		if s.streamSSE(w, r, id, 0) {
			// A write can find the client gone before net/http cancels
			// the request's context, which it does only once this
			// handler has returned and stopped the AfterFunc above: the
			// run would go on to its end with nobody reading.
			lr.cancel()
		}
	default:
		select {
		case <-lr.done:
		case <-r.Context().Done():
			return
		}
		info, err := s.log.Info(context.WithoutCancel(r.Context()), id)
		if err != nil {
			writeError(w, s.unavailable("read run", err))
			return
		}
		writeJSON(w, http.StatusOK, info)
	}
}

func printable(s string) bool {
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func (s *Server) tooMany(msg string) *Error {
	e := errorf(http.StatusTooManyRequests, CodeTooManyRuns, "", msg)
	e.RetryAfter = s.limits.RetryAfter
	return e
}

// providerError turns a provider's error into the response: its own
// *Error as it is, anything else a 500 (logged).
func (s *Server) providerError(what string, err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	s.logger.Error("server: "+what, "err", err)
	return errorf(http.StatusInternalServerError, CodeInternal, "", what+": "+err.Error())
}

// writeAccepted answers 202 for a run continuing in the background, with
// its status (running or queued); base is the run's URL relative to the
// request's.
func writeAccepted(w http.ResponseWriter, id string, status RunStatus, base string) {
	w.Header().Set("Location", base)
	writeJSON(w, http.StatusAccepted, RunAccepted{RunID: id, Status: status,
		Links: RunLinks{Self: base, Events: base + "/events", Cancel: base + "/cancel"}})
}

// admission is a run's place on the server and, with a session, in the
// session's queue. Until the run is launched, release gives both back;
// then the run's drive does.
type admission struct {
	s         *Server
	sessionID string
	// owner is the principal whose run slot the run holds ("" for the
	// anonymous principal, whom no per-principal cap counts).
	owner string
	gate  *gate
	// held reports that the run holds its session's turn: it took it at
	// admission, the session being free, or waited for it in drive.
	held     bool
	launched bool
}

// admit takes a run slot, one of owner's, and a place in the session's
// queue, and the session's turn if no run holds it, or answers 429.
func (s *Server) admit(owner, sessionID string) (*admission, *Error) {
	if s.active.Add(1) > int64(s.limits.MaxConcurrentRuns) {
		s.active.Add(-1)
		return nil, s.tooMany("the server is running its maximum of runs")
	}
	// The anonymous principal is every caller of a server without an
	// Authenticator: the server's cap is its cap.
	if owner != "" && !s.principals.enter(owner, s.limits.MaxRunsPerPrincipal) {
		s.active.Add(-1)
		return nil, s.tooMany("the principal has its maximum of runs running or waiting")
	}
	a := &admission{s: s, sessionID: sessionID, owner: owner}
	if sessionID != "" {
		gt, ok := s.gates.enter(sessionID, s.limits.MaxRunsPerSession)
		if !ok {
			a.free()
			return nil, s.tooMany("the session has its maximum of runs running or waiting")
		}
		a.gate, a.held = gt, gt.tryAcquire()
	}
	return a, nil
}

// free gives back the run's slots (the server's and its owner's) and its
// place in the session's queue, with its turn if it held it.
func (a *admission) free() {
	if a.gate != nil {
		a.s.gates.leave(a.sessionID, a.gate, a.held)
	}
	if a.owner != "" {
		a.s.principals.leave(a.owner)
	}
	a.s.active.Add(-1)
}

// status is the status the admitted run starts with: queued while
// another run holds its session, running otherwise.
func (a *admission) status() RunStatus {
	if a.gate != nil && !a.held {
		return StatusQueued
	}
	return StatusRunning
}

func (a *admission) release() {
	if a.launched {
		return
	}
	a.free()
}

// sessionHeader returns the session a request names in X-Session-Id ("" for
// none).
func sessionHeader(r *http.Request) (string, *Error) {
	id := r.Header.Get("X-Session-Id")
	if len(id) > 256 || !printable(id) {
		return "", errorf(http.StatusBadRequest, CodeBadRequest, "X-Session-Id", "X-Session-Id must be at most 256 printable ASCII characters")
	}
	return id, nil
}

// begin indexes info, a run the log holds as running or queued, and launches it
// under adm: the one start a new run, a fork and a resumed run share. It
// answers the request itself when the server is shutting down.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, info RunInfo, adm *admission) (*liveRun, context.Context, bool) {
	s.index(r.Context(), info)
	lr, ctx, ok := s.launch(info, adm)
	if !ok {
		writeError(w, errorf(http.StatusServiceUnavailable, CodeShuttingDown, "", "the server is shutting down"))
	}
	return lr, ctx, ok
}

// launch registers a live run for info and hands it the admission; it
// reports false (and ends the run in the log) when the server is shutting
// down.
func (s *Server) launch(info RunInfo, adm *admission) (*liveRun, context.Context, bool) {
	ctx, cancel := context.WithCancel(s.runCtx)
	lr := &liveRun{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		cancel()
		w := runWriter{s: s, id: info.ID, owner: info.Owner, ctx: context.Background(), seq: info.LastEvent}
		w.fail(info, &helikon.AgentError{Kind: helikon.KindCancelled, Agent: info.Agent, Message: "the server is shutting down"})
		return nil, nil, false
	}
	s.live[info.ID] = lr
	s.runs.Add(1)
	adm.launched = true
	return lr, ctx, true
}

// drive drains a run's events into the log, after the events up to seq,
// once the run has its session's turn, and records how the run stopped.
// It gives back adm's run slot and session turn.
func (s *Server) drive(ctx context.Context, lr *liveRun, info RunInfo, events iter.Seq[helikon.Event], seq int64, adm *admission) {
	// The run gives back its slot and its session's turn before its
	// end (or pause) is stored, and before done closes: a client that
	// sees it ended, by its record, stream, cancel or one-shot answer,
	// may start the session's next run at once.
	free := sync.OnceFunc(adm.free)
	defer func() {
		s.mu.Lock()
		delete(s.live, info.ID)
		s.mu.Unlock()
		lr.cancel()
		free()
		close(lr.done)
		s.runs.Done()
	}()
	// The log outlives a cancelled run: its last events still land.
	w := runWriter{s: s, id: info.ID, owner: info.Owner, ctx: context.WithoutCancel(ctx), seq: seq, free: free}
	if adm.gate != nil && !adm.held && !w.takeTurn(ctx, &info, adm) {
		return
	}
	out := &RunOutput{}
	if info.Result != nil {
		out.FinalOutput, out.LastAgent = info.Result.FinalOutput, info.Result.LastAgent
	}
	info.Status, info.Error = StatusFailed, nil
	for ev := range events {
		switch e := ev.(type) {
		case helikon.MessageOutput:
			out.FinalOutput, out.LastAgent = e.Item.Text(), e.Item.Agent
		case helikon.RunCompleted:
			info.Status, out.Usage = StatusCompleted, e.Usage
		case helikon.RunPaused:
			lr.pausing.Store(true)
			info.Status, out.Usage = StatusPaused, e.Usage
			if e.State != nil {
				info.PauseID, info.Pending, info.PausedRunID = e.State.PauseID, e.State.Pending, e.State.RunID
			}
		case helikon.RunFailed:
			info.Error, out.Usage = agentError(e.Err), e.Usage
			if info.Error.Kind == helikon.KindCancelled {
				info.Status = StatusCancelled
			}
		}
		if !w.append(ev) {
			// The log refuses the run's events: no client can see
			// them, so the run stops.
			info.Status, info.PauseID, info.Pending = StatusFailed, "", nil
			info.Error = &helikon.AgentError{Kind: helikon.KindOther, Agent: info.Agent, Message: "event log: " + w.err.Error()}
			break
		}
	}
	if info.Status == StatusFailed && info.Error == nil {
		info.Error = &helikon.AgentError{Kind: helikon.KindOther, Agent: info.Agent, Message: "the run ended without a terminal event"}
	}
	info.Result = out
	w.store(info)
}

func agentError(err error) *helikon.AgentError {
	if ae, ok := errors.AsType[*helikon.AgentError](err); ok {
		return ae
	}
	if err == nil {
		return &helikon.AgentError{Kind: helikon.KindOther, Message: "unknown failure"}
	}
	return &helikon.AgentError{Kind: helikon.KindOther, Message: err.Error(), Err: err}
}

// runWriter appends one run's records in order.
type runWriter struct {
	s     *Server
	id    string
	owner string
	ctx   context.Context
	seq   int64
	err   error
	// free, when set, gives back the run's slot and session turn; store
	// calls it before it stores the run's end or pause.
	free func()
}

func (w *runWriter) append(ev helikon.Event) bool {
	data, err := json.Marshal(ev)
	if err == nil {
		w.seq++
		err = w.s.log.Append(w.ctx, w.id, Record{Seq: w.seq, Type: eventType(ev, data), Data: data})
	}
	if err != nil {
		w.err = err
		w.s.logger.Error("server: append run event", "run", w.id, "principal", w.owner, "err", err)
		return false
	}
	return true
}

// takeTurn waits for the session's turn of info, a queued run, and
// stores the run as running once it has it. When the run is cancelled
// while it waits, or the log does not take the change, it ends the run
// and reports false.
func (w *runWriter) takeTurn(ctx context.Context, info *RunInfo, adm *admission) bool {
	if err := adm.gate.acquire(ctx); err != nil {
		w.fail(*info, &helikon.AgentError{Kind: helikon.KindCancelled, Agent: info.Agent,
			Message: "cancelled while waiting for the session's previous run", Err: err})
		return false
	}
	adm.held = true
	info.Status = StatusRunning
	if err := w.store(*info); err != nil {
		w.fail(*info, &helikon.AgentError{Kind: helikon.KindOther, Agent: info.Agent, Message: "event log: " + err.Error(), Err: err})
		return false
	}
	return true
}

// fail ends a run that failed before its agent ran, with its one event.
func (w *runWriter) fail(info RunInfo, ae *helikon.AgentError) {
	w.append(helikon.RunFailed{At: time.Now().UTC(), Err: ae})
	info.Error, info.Result = ae, &RunOutput{}
	info.Status = StatusFailed
	if ae.Kind == helikon.KindCancelled {
		info.Status = StatusCancelled
	}
	w.store(info)
}

// store stores the run's record as its status changed (it took its
// session's turn, paused or ended) and indexes it; it logs, and returns,
// the log's error.
func (w *runWriter) store(info RunInfo) error {
	info.LastEvent = w.seq
	if info.Status.Final() {
		now := time.Now().UTC()
		info.FinishedAt = &now
	}
	if w.free != nil && (info.Status.Final() || info.Status == StatusPaused) {
		w.free()
	}
	err := w.s.log.Update(w.ctx, info)
	if err != nil {
		w.s.logger.Error("server: store run", "run", w.id, "status", info.Status, "principal", info.Owner, "err", err)
	} else {
		w.s.index(w.ctx, info)
	}
	if info.Error != nil && (info.Status == StatusFailed || info.Status == StatusCancelled) {
		level := slog.LevelWarn
		if info.Status == StatusCancelled {
			level = slog.LevelInfo
		}
		w.s.logger.Log(w.ctx, level, "server: run "+string(info.Status), "run", w.id, "agent", info.Agent,
			"principal", info.Owner, "kind", info.Error.Kind, "err", info.Error.Message)
	}
	return err
}

// openRun admits a run of owner on the session the provider names
// sessionID (a [scopedSession]), opens the session and builds the run's context on it:
// the one path a new run and a resumed one share. The caller releases the
// admission.
func (s *Server) openRun(r *http.Request, owner, sessionID string) (*admission, *helikon.RunContext, *Error) {
	adm, e := s.admit(owner, sessionID)
	if e != nil {
		return nil, nil, e
	}
	sess, err := s.sessions.Session(r.Context(), sessionID)
	if err != nil {
		adm.release()
		return nil, nil, s.providerError("open session", err)
	}
	rc, err := s.contexts.RunContext(r, sess)
	if err != nil {
		adm.release()
		return nil, nil, s.providerError("build run context", err)
	}
	if rc == nil || rc.Session() != sess {
		adm.release()
		return nil, nil, errorf(http.StatusInternalServerError, CodeInternal, "", "the context provider must build a run context on the run's session")
	}
	return adm, rc, nil
}
