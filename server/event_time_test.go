package server_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// TestEventLog_EventTimesSurviveTheLog replays a finished run from each
// event log and checks that every event but the raw deltas still carries
// the time the run emitted it.
func TestEventLog_EventTimesSurviveTheLog(t *testing.T) {
	logs := map[string]func(t *testing.T) server.EventLog{
		"memory": func(t *testing.T) server.EventLog { return server.NewMemoryLog() },
		"redis": func(t *testing.T) server.EventLog {
			return redisLog(t, "helikon-test:"+uuid.NewString()[:8]+":")
		},
	}
	for name, open := range logs {
		t.Run(name, func(t *testing.T) {
			before := time.Now()
			_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithEventLog(open(t)))
			resp := post(t, ts.URL+"/agents/greeter/runs?stream=sse", `{"input":"hi"}`)
			id := resp.Header.Get("X-Run-Id")
			readFrames(t, resp.Body)
			resp.Body.Close()
			after := time.Now()

			resp = get(t, ts.URL+"/agents/greeter/runs/"+id+"/events", "Accept", "text/event-stream")
			replayed := readFrames(t, resp.Body)
			resp.Body.Close()
			stamped := 0
			for _, f := range replayed {
				ev, err := helikon.UnmarshalEvent([]byte(f.data))
				if err != nil {
					t.Fatalf("%s: %v", f.data, err)
				}
				if _, delta := ev.(helikon.TokenDelta); delta {
					continue
				}
				at := helikon.EventTime(ev)
				if at.Before(before) || at.After(after) {
					t.Errorf("replayed %s: at %v, not within the run [%v, %v]", f.data, at, before, after)
				}
				stamped++
			}
			if stamped < 4 {
				t.Fatalf("replayed %d stamped events, want the run's lifecycle: %v", stamped, types(replayed))
			}
		})
	}
}
