package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

// wsMessages reads a run's event socket from ?after=after: each message's
// seq and type, and the close status.
func wsMessages(t *testing.T, url string) ([]int64, []string, websocket.StatusCode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var seqs []int64
	var typs []string
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			return seqs, typs, websocket.CloseStatus(err)
		}
		var m struct {
			Seq  int64  `json:"seq"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("message %s: %v", data, err)
		}
		if _, err := helikon.UnmarshalEvent(data); err != nil {
			t.Fatalf("message %s is no event: %v", data, err)
		}
		seqs, typs = append(seqs, m.Seq), append(typs, m.Type)
	}
}

func TestEvents_ResumeAtEveryPositionOfAFinishedRunAfterTheLastEndsCleanly(t *testing.T) {
	for _, lg := range eventLogs {
		t.Run(lg.name, func(t *testing.T) {
			_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithEventLog(lg.open(t)))
			info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/greeter/runs", `{"input":"hi"}`))
			n := int64(len(greeterEvents))
			if info.Status != server.StatusCompleted || info.LastEvent != n {
				t.Fatalf("the run: %+v", info)
			}
			events := ts.URL + "/agents/greeter/runs/" + info.ID + "/events"
			for after := int64(0); after <= n; after++ {
				t.Run("after "+strconv.FormatInt(after, 10), func(t *testing.T) {
					var wantIDs []string
					var wantSeqs []int64
					for seq := after + 1; seq <= n; seq++ {
						wantIDs, wantSeqs = append(wantIDs, strconv.FormatInt(seq, 10)), append(wantSeqs, seq)
					}
					wantTypes := greeterEvents[after:]
					// SSE with Last-Event-ID, as an EventSource reconnects;
					// after the terminal event: 204, no frames.
					h := []string{"Accept", "text/event-stream"}
					if after > 0 {
						h = append(h, "Last-Event-ID", strconv.FormatInt(after, 10))
					}
					resp := get(t, events, h...)
					fs := readFrames(t, resp.Body)
					resp.Body.Close()
					var ids []string
					for _, f := range fs {
						ids = append(ids, f.id)
					}
					wantStatus := http.StatusOK
					if after == n {
						wantStatus = http.StatusNoContent
					}
					if resp.StatusCode != wantStatus || !slices.Equal(types(fs), wantTypes) || !slices.Equal(ids, wantIDs) {
						t.Errorf("SSE: %d %v ids %v; want %d %v ids %v", resp.StatusCode, types(fs), ids, wantStatus, wantTypes, wantIDs)
					}
					// WebSocket with ?after=: every message says its seq.
					seqs, typs, status := wsMessages(t, events+"?after="+strconv.FormatInt(after, 10))
					if status != websocket.StatusNormalClosure || !slices.Equal(typs, wantTypes) || !slices.Equal(seqs, wantSeqs) {
						t.Errorf("WebSocket: %v seqs %v closed %v; want %v seqs %v", typs, seqs, status, wantTypes, wantSeqs)
					}
				})
			}
		})
	}
}
