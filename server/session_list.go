package server

import (
	"net/http"
	"strings"
	"time"

	"github.com/paigasus/helikon/internal/textcut"
)

// SessionInfo describes one of the caller's sessions, as GET /sessions
// lists them.
type SessionInfo struct {
	ID string `json:"id" jsonschema:"the X-Session-Id its runs were started with"`
	// Label is the input of the session's first run still listed, so a
	// picker can say what the session was about.
	Label     string    `json:"label" jsonschema:"the input of the session's earliest listed run (its first 200 bytes)"`
	Agent     string    `json:"agent" jsonschema:"the agent of its latest run"`
	Runs      int       `json:"runs" jsonschema:"how many of its runs are listed"`
	CreatedAt time.Time `json:"created_at" jsonschema:"when its earliest listed run started (RFC 3339)"`
	UpdatedAt time.Time `json:"updated_at" jsonschema:"when its latest run started (RFC 3339)"`
}

// SessionList is the body of GET /sessions.
type SessionList struct {
	Sessions []SessionInfo `json:"sessions" jsonschema:"the caller's sessions, the latest used first"`
}

// maxSessionLabel caps [SessionInfo].Label.
const maxSessionLabel = 200

// listSessions answers the caller's own sessions, derived from its newest
// [MaxRunListLimit] runs in the run index (or the event log): a session id
// is scoped to its principal, so even an admin lists only its own, and
// another principal's session ids never appear.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	lister, ok := s.lister()
	if !ok {
		writeError(w, errorf(http.StatusNotImplemented, CodeNotImplemented, "",
			"the server's event log cannot list runs, so neither sessions"))
		return
	}
	p := PrincipalOf(r.Context())
	runs, err := lister.Runs(r.Context(), RunQuery{Owner: p.ID, Limit: MaxRunListLimit})
	if err != nil {
		writeError(w, s.unavailable("list sessions", err))
		return
	}
	writeJSON(w, http.StatusOK, SessionList{Sessions: sessionsOf(runs, p.ID)})
}

// sessionsOf groups runs (newest first) by session, the latest used
// first. Runs of another owner are skipped whatever the lister returned.
func sessionsOf(runs []RunInfo, owner string) []SessionInfo {
	out := []SessionInfo{}
	at := map[string]int{}
	first := []string{} // the input of each session's earliest run
	for _, run := range runs {
		if run.SessionID == "" || run.Owner != owner {
			continue
		}
		i, seen := at[run.SessionID]
		if !seen {
			at[run.SessionID] = len(out)
			out = append(out, SessionInfo{ID: run.SessionID, Agent: run.Agent, UpdatedAt: run.CreatedAt})
			first = append(first, "")
			i = len(out) - 1
		}
		si := &out[i]
		si.Runs++
		// Runs come newest first: the last one seen is the earliest.
		si.CreatedAt = run.CreatedAt
		first[i] = run.Input
	}
	for i := range out {
		out[i].Label = label(first[i])
	}
	return out
}

// label cuts text to maxSessionLabel bytes on a rune boundary, on one line.
func label(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if head, cut := textcut.Prefix(text, maxSessionLabel); cut {
		return head + "…"
	}
	return text
}
