package server_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// logOnly hides every method of an event log but the EventLog ones: a
// replica whose log relays no cancels.
type logOnly struct{ server.EventLog }

// TestCancel_ReachesTheRunOnAnotherReplica starts runs on one replica and
// cancels them through another, both on one Redis event log: the cancel
// is relayed to the owner, which ends the run cancelled; a replica whose
// log relays no cancels, and an owner that does not listen, answer typed
// errors.
func TestCancel_ReachesTheRunOnAnotherReplica(t *testing.T) {
	server.SetRelayWait(t, 300*time.Millisecond)
	prefix := "helikon-test:" + uuid.NewString()[:8] + ":"
	agent := newAgent(t, "stuck", time.Hour)
	agents := []helikon.Agent{agent}
	_, owner := start(t, agents, server.WithEventLog(redisLog(t, prefix)))
	_, deaf := start(t, agents, server.WithEventLog(logOnly{redisLog(t, prefix)}))
	_, asker := start(t, agents, server.WithEventLog(redisLog(t, prefix)))
	_, noRelay := start(t, agents, server.WithEventLog(logOnly{redisLog(t, prefix)}))

	tests := []struct {
		name       string
		runOn      string
		cancelOn   string
		wantStatus int
		wantCode   string
		wantRun    server.RunStatus // the run's status read on its owner afterwards
	}{
		{"relayed to the owner", owner.URL, asker.URL, http.StatusOK, "", server.StatusCancelled},
		{"asked on the owner itself", owner.URL, owner.URL, http.StatusOK, "", server.StatusCancelled},
		{"the asked replica relays no cancels", owner.URL, noRelay.URL, http.StatusConflict, server.CodeRunElsewhere, server.StatusRunning},
		{"the owner does not act on relayed cancels", deaf.URL, asker.URL, http.StatusGatewayTimeout, server.CodeCancelTimeout, server.StatusRunning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := decode[server.RunAccepted](t, post(t, tt.runOn+"/agents/stuck/runs?mode=async", `{"input":"hi"}`)).RunID
			resp := post(t, tt.cancelOn+"/agents/stuck/runs/"+id+"/cancel", "")
			if resp.StatusCode != tt.wantStatus {
				resp.Body.Close()
				t.Fatalf("cancel answered %d, want %d", resp.StatusCode, tt.wantStatus)
			}
			if tt.wantCode != "" {
				if body := decode[server.ErrorBody](t, resp); body.Error == nil || body.Error.Code != tt.wantCode || body.Error.Message == "" {
					t.Fatalf("error body %+v, want code %s", body.Error, tt.wantCode)
				}
			} else if info := decode[server.RunInfo](t, resp); info.Status != server.StatusCancelled || info.Error == nil || info.Error.Kind != helikon.KindCancelled {
				t.Fatalf("cancel answered the run as %+v", info)
			}
			if got := runInfo(t, tt.runOn, "stuck", id); got.Status != tt.wantRun {
				t.Fatalf("the owner reads the run as %s, want %s", got.Status, tt.wantRun)
			}
			if !tt.wantRun.Final() { // the owner still cancels its own run
				if info := decode[server.RunInfo](t, post(t, tt.runOn+"/agents/stuck/runs/"+id+"/cancel", "")); info.Status != server.StatusCancelled {
					t.Fatalf("cancel on the owner: %+v", info)
				}
			}
		})
	}
}
