package server

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/paigasus/helikon/internal/httphost"
)

// routes builds the mux. Patterns carry no method, so a wrong method gets
// the server's JSON 405 (with Allow) instead of the mux's plain-text one.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	for _, r := range s.apiRoutes() {
		mux.Handle(r.pattern, r.methods)
	}
	if s.devUI != nil {
		mux.Handle("/ui/", s.devUI)
		// Relative redirects, so that they hold under a mount prefix.
		mux.Handle("/ui", route{http.MethodGet: redirectTo("ui/")})
		mux.Handle("/{$}", route{http.MethodGet: redirectTo("ui/")})
	}
	for _, m := range s.mounts {
		mux.Handle(m.prefix, m.h)
	}
	mux.HandleFunc("/", httphost.NotFound)
	return mux
}

// apiRoute is one path of the server's API and the methods it answers.
type apiRoute struct {
	pattern string
	methods route
}

// apiRoutes are the routes the OpenAPI document describes, every one of
// them: tests hold the document, the route table of docs/server.md and
// the first segments [checkMount] keeps from mounts to this list.
func (s *Server) apiRoutes() []apiRoute {
	return []apiRoute{
		{"/agents", route{http.MethodGet: s.listAgents}},
		{"/agents/{name}/graph", route{http.MethodGet: s.agentGraph}},
		{"/agents/{name}/runs", route{http.MethodPost: s.startRun}},
		{"/agents/{name}/runs/{id}", route{http.MethodGet: s.getRun}},
		{"/agents/{name}/runs/{id}/events", route{http.MethodGet: s.runEvents}},
		{"/agents/{name}/runs/{id}/cancel", route{http.MethodPost: s.cancelRun}},
		{"/agents/{name}/runs/{id}/approvals", route{http.MethodGet: s.listApprovals, http.MethodPost: s.decide}},
		{"/agents/{name}/runs/{id}/case", route{http.MethodPost: s.saveCase}},
		{"/eval/dataset", route{http.MethodGet: s.evalDataset}},
		{"/agents/{name}/runs/{id}/calls", route{http.MethodGet: s.listCalls}},
		{"/agents/{name}/runs/{id}/fork", route{http.MethodPost: s.fork}},
		{"/runs", route{http.MethodGet: s.listRuns}},
		{"/sessions", route{http.MethodGet: s.listSessions}},
		{"/openapi.json", route{http.MethodGet: s.openAPI}},
	}
}

// redirectTo answers 302 to a location relative to the request's URL.
func redirectTo(rel string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Location", rel)
		w.WriteHeader(http.StatusFound)
	}
}

// route dispatches one path's methods, answering any other 405 with Allow.
type route = httphost.Methods

func (s *Server) listAgents(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.list)
}

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(s.openapi)))
	_, _ = w.Write(s.openapi)
}

// runOf resolves {name} and {id} to the run's record, answering 404 for an
// unknown agent or a run of another agent.
func (s *Server) runOf(w http.ResponseWriter, r *http.Request) (RunInfo, bool) {
	info, _, ok := s.lookupRun(w, r)
	return info, ok
}

// lookupRun is runOf that also reports whether the event log holds the
// run (else only the run index does: its events are gone).
func (s *Server) lookupRun(w http.ResponseWriter, r *http.Request) (_ RunInfo, logged, _ bool) {
	name, id := r.PathValue("name"), r.PathValue("id")
	if _, ok := s.agents[name]; !ok {
		writeError(w, agentNotFound(name))
		return RunInfo{}, false, false
	}
	info, err := s.log.Info(r.Context(), id)
	logged = err == nil
	if err != nil {
		info, err = s.indexed(r.Context(), id, err)
	}
	p := PrincipalOf(r.Context())
	// Another principal's run is answered exactly as a run that does not
	// exist, so the answer confirms no id.
	if err == nil && (info.Agent != name || !p.owns(info.Owner)) {
		err = ErrRunNotFound
	}
	switch {
	case errors.Is(err, ErrRunNotFound):
		writeError(w, errorf(http.StatusNotFound, CodeRunNotFound, "", "agent "+name+" has no run "+id))
		return RunInfo{}, false, false
	case err != nil:
		writeError(w, s.unavailable("read run", err))
		return RunInfo{}, false, false
	}
	if p.ID != info.Owner {
		s.audit(r, p, "run", id, "owner", info.Owner)
	}
	w.Header().Set("X-Run-Id", id)
	return info, logged, true
}

// audit logs an admin principal's use of what is not its own.
func (s *Server) audit(r *http.Request, p Principal, attrs ...any) {
	s.logger.InfoContext(r.Context(), "server: audit: admin access",
		append([]any{"principal", p.ID, "method", r.Method, "path", r.URL.Path}, attrs...)...)
}

func agentNotFound(name string) *Error {
	return errorf(http.StatusNotFound, CodeAgentNotFound, "", "no agent named "+strconv.Quote(name))
}

// unavailable logs a backend failure and returns the 503 a caller sees.
func (s *Server) unavailable(what string, err error) *Error {
	s.logger.Error("server: "+what, "err", err)
	return errorf(http.StatusServiceUnavailable, CodeUnavailable, "", what+": "+err.Error())
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if info, ok := s.runOf(w, r); ok {
		writeJSON(w, http.StatusOK, info)
	}
}

// runEvents replays and follows a run: over WebSocket when the request
// asks to upgrade, else as Server-Sent Events from Last-Event-ID (or the
// after query parameter) on.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	after, err := lastEventID(r)
	if err != nil {
		writeError(w, err)
		return
	}
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	if !upgrade && !acceptsEventStream(r.Header.Get("Accept")) {
		writeError(w, errorf(http.StatusNotAcceptable, CodeNotAcceptable, "",
			"this route serves text/event-stream, or a WebSocket upgrade"))
		return
	}
	info, logged, ok := s.lookupRun(w, r)
	if !ok {
		return
	}
	if !logged {
		// Only the run index remembers the run: its events went with
		// the log of the server that ran it.
		writeError(w, errorf(http.StatusGone, CodeEventsGone, "",
			"the events of run "+info.ID+" are no longer kept (the event log that held them is gone); GET the run for its record"))
		return
	}
	if info.Status.Final() && after > info.LastEvent {
		// No stream sent this id: the run's events end before it. Left
		// to the log, a tail past a finished run's end waited for ever
		// (redislog) or told of a failure the run did not have.
		field := "Last-Event-ID"
		if r.Header.Get(field) == "" {
			field = "after"
		}
		writeError(w, errorf(http.StatusBadRequest, CodeBadRequest, field,
			field+" "+strconv.FormatInt(after, 10)+" is past the run's last event ("+strconv.FormatInt(info.LastEvent, 10)+")"))
		return
	}
	// Counted against the caller, who holds the connection (an admin
	// reading another's run too).
	if p := PrincipalOf(r.Context()).ID; p != "" {
		if !s.streams.enter(p, s.limits.MaxStreamsPerPrincipal) {
			e := errorf(http.StatusTooManyRequests, CodeTooManyStreams, "", "the principal holds its maximum of open event streams; close one")
			e.RetryAfter = s.limits.RetryAfter
			writeError(w, e)
			return
		}
		defer s.streams.leave(p)
	}
	if upgrade {
		s.streamWebSocket(w, r, info.ID, after)
		return
	}
	// A finished run resumed after its terminal event has nothing more to
	// send: 204 also tells an EventSource to stop reconnecting.
	if info.Status.Final() && after > 0 && after >= info.LastEvent && s.terminalAt(r.Context(), info.ID, after) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.streamSSE(w, r, info.ID, after)
}

func lastEventID(r *http.Request) (int64, *Error) {
	v, field := r.Header.Get("Last-Event-ID"), "Last-Event-ID"
	if v == "" {
		v, field = r.URL.Query().Get("after"), "after"
	}
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, errorf(http.StatusBadRequest, CodeBadRequest, field, field+" must be an event id (a non-negative integer)")
	}
	return n, nil
}

func acceptsEventStream(accept string) bool {
	if accept == "" {
		return true
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.TrimSpace(mt) {
		case "text/event-stream", "text/*", "*/*":
			return true
		}
	}
	return false
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request) {
	info, ok := s.runOf(w, r)
	if !ok {
		return
	}
	if info.Status == StatusPaused {
		s.cancelPausedRun(w, r, info)
		return
	}
	if !info.Status.Final() {
		s.mu.Lock()
		lr := s.live[info.ID]
		s.mu.Unlock()
		if lr == nil {
			s.cancelElsewhere(w, r, info)
			return
		}
		lr.cancel()
		select {
		case <-lr.done:
		case <-r.Context().Done():
			return
		}
		var err error
		if info, err = s.log.Info(r.Context(), info.ID); err != nil {
			writeError(w, s.unavailable("read run", err))
			return
		}
	}
	writeJSON(w, http.StatusOK, info)
}

// cancelPausedRun ends a paused run as cancelled and answers its record.
func (s *Server) cancelPausedRun(w http.ResponseWriter, r *http.Request, info RunInfo) {
	info, err := s.cancelPaused(r.Context(), info)
	if err != nil {
		if errors.Is(err, ErrNotPaused) {
			writeError(w, errorf(http.StatusConflict, CodeNotPaused, "", "the run left its pause meanwhile; cancel it again"))
			return
		}
		writeError(w, s.unavailable("cancel the paused run", err))
		return
	}
	writeJSON(w, http.StatusOK, info)
}
