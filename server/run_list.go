package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/textcut"
)

// RunLister is an [EventLog] that can list the runs it holds, for
// GET /runs (the dev UI's list of past runs). [MemoryLog] and the Redis log are; a log
// that is not answers that route with 501.
type RunLister interface {
	// Runs returns the runs q selects, newest first, at most q.Limit.
	Runs(ctx context.Context, q RunQuery) ([]RunInfo, error)
}

// RunQuery selects runs for [RunLister.Runs]: the runs of Owner (the
// anonymous principal's when empty) unless AllOwners, and of Agent and
// SessionID when they are set.
type RunQuery struct {
	// Owner selects the runs of this principal ([RunInfo].Owner).
	Owner string
	// AllOwners selects every principal's runs (an admin's listing).
	AllOwners bool
	Agent     string
	SessionID string
	// Limit caps how many runs come back; <= 0 means [DefaultRunListLimit].
	Limit int
}

// RunList is the body of GET /runs.
type RunList struct {
	Runs []RunInfo `json:"runs" jsonschema:"the retained runs, newest first"`
}

// The bounds of GET /runs' limit parameter.
const (
	DefaultRunListLimit = 100
	MaxRunListLimit     = 1000
)

// CodeNotImplemented is the error code of a route the server's
// configuration cannot serve (GET /runs on a log that cannot list runs).
const CodeNotImplemented = "not_implemented"

// maxInputRecord caps the user input a run's record keeps ([RunInfo].Input).
const maxInputRecord = 4096

// lister is where the run listings read: the run index, or else the log
// when it can list runs.
func (s *Server) lister() (RunLister, bool) {
	if s.runIndex != nil {
		return s.runIndex, true
	}
	l, ok := s.log.(RunLister)
	return l, ok
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	lister, ok := s.lister()
	if !ok {
		writeError(w, errorf(http.StatusNotImplemented, CodeNotImplemented, "",
			"the server's event log cannot list runs"))
		return
	}
	v := r.URL.Query()
	p := PrincipalOf(r.Context())
	q := RunQuery{Owner: p.ID, AllOwners: p.Admin, Agent: v.Get("agent"), SessionID: v.Get("session"), Limit: DefaultRunListLimit}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > MaxRunListLimit {
			writeError(w, errorf(http.StatusBadRequest, CodeBadRequest, "limit",
				"limit must be an integer from 1 to "+strconv.Itoa(MaxRunListLimit)))
			return
		}
		q.Limit = n
	}
	if q.Agent != "" {
		if _, ok := s.agents[q.Agent]; !ok {
			writeError(w, agentNotFound(q.Agent))
			return
		}
	}
	if p.Admin {
		s.audit(r, p, "runs", "all principals'")
	}
	runs, err := lister.Runs(r.Context(), q)
	if err != nil {
		writeError(w, s.unavailable("list runs", err))
		return
	}
	if runs == nil {
		runs = []RunInfo{}
	}
	writeJSON(w, http.StatusOK, RunList{Runs: runs})
}

// Runs returns the runs q selects, newest first.
func (l *MemoryLog) Runs(_ context.Context, q RunQuery) ([]RunInfo, error) {
	l.mu.RLock()
	runs := make([]*memRun, 0, len(l.runs))
	for _, r := range l.runs {
		runs = append(runs, r)
	}
	l.mu.RUnlock()
	all := make([]RunInfo, len(runs))
	for i, r := range runs {
		r.mu.Lock()
		all[i] = r.info
		r.mu.Unlock()
	}
	return q.Select(all), nil
}

// Select returns the runs of runs that q selects, newest first (ties by
// id), at most q.Limit of them (<= 0: [DefaultRunListLimit]): what a
// [RunLister] returns once it has read its runs. It reorders runs.
func (q RunQuery) Select(runs []RunInfo) []RunInfo {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultRunListLimit
	}
	runs = slices.DeleteFunc(runs, func(info RunInfo) bool {
		return (!q.AllOwners && info.Owner != q.Owner) ||
			(q.Agent != "" && info.Agent != q.Agent) || (q.SessionID != "" && info.SessionID != q.SessionID)
	})
	slices.SortFunc(runs, func(a, b RunInfo) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return runs[:min(len(runs), limit)]
}

// inputRecord is the text a run's record keeps of its input: the input
// string, or the last user message's text, cut to maxInputRecord bytes on
// a rune boundary.
func inputRecord(q *RunRequest) string {
	text := q.Input
	if text == "" {
		for i := len(q.Messages) - 1; i >= 0; i-- {
			if q.Messages[i].Role == helikon.RoleUser {
				text = q.Messages[i].Text()
				break
			}
		}
	}
	return truncateInput(text)
}

// truncateInput cuts text to maxInputRecord bytes on a rune boundary.
func truncateInput(text string) string {
	text, _ = textcut.Prefix(text, maxInputRecord)
	return text
}
