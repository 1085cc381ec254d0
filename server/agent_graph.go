package server

import (
	"net/http"

	"github.com/paigasus/helikon/agentgraph"
)

// agentGraph answers the structure of the agent {name} as
// [agentgraph.Describe] gives it: the dev UI draws it.
func (s *Server) agentGraph(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a, ok := s.agents[name]
	if !ok {
		writeError(w, agentNotFound(name))
		return
	}
	writeJSON(w, http.StatusOK, agentgraph.Describe(a))
}
