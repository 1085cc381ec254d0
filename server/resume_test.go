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

func TestEvents_ResumePastTheLastEventOfAFinishedRunIsABadRequest(t *testing.T) {
	for _, lg := range eventLogs {
		t.Run(lg.name, func(t *testing.T) {
			_, ts := start(t, []helikon.Agent{newAgent(t, "greeter", 0)}, server.WithEventLog(lg.open(t)))
			info := decode[server.RunInfo](t, post(t, ts.URL+"/agents/greeter/runs", `{"input":"hi"}`))
			if info.Status != server.StatusCompleted {
				t.Fatalf("the run: %+v", info)
			}
			events := ts.URL + "/agents/greeter/runs/" + info.ID + "/events"
			for _, after := range []int64{info.LastEvent + 1, 1<<63 - 1} {
				for _, tt := range []struct {
					transport, url string
					header         []string
				}{
					{"SSE", events, []string{"Accept", "text/event-stream", "Last-Event-ID", strconv.FormatInt(after, 10)}},
					{"WebSocket", events + "?after=" + strconv.FormatInt(after, 10), []string{"Connection", "Upgrade", "Upgrade", "websocket",
						"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}},
				} {
					t.Run(tt.transport+" after "+strconv.FormatInt(after, 10), func(t *testing.T) {
						// The deadline only keeps a stream that never ends
						// from hanging the test.
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						req, err := http.NewRequestWithContext(ctx, "GET", tt.url, nil)
						if err != nil {
							t.Fatal(err)
						}
						for i := 0; i+1 < len(tt.header); i += 2 {
							req.Header.Set(tt.header[i], tt.header[i+1])
						}
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							t.Fatalf("no answer: %v", err)
						}
						defer resp.Body.Close()
						if resp.StatusCode != http.StatusBadRequest {
							t.Fatalf("status %d, want 400", resp.StatusCode)
						}
						if e := decode[server.ErrorBody](t, resp); e.Error.Code != server.CodeBadRequest || !strings.Contains(e.Error.Message, "past the run's last event") {
							t.Errorf("error %+v", e.Error)
						}
					})
				}
			}
		})
	}
}

// A client may hold a resume point past the end of a run still running
// (a stale or forged Last-Event-ID). When the run then completes, its
// stream ends with nothing more, as after the run's terminal event: it
// told of a failure the run did not have.
func TestEvents_AStreamResumedPastTheEndOfARunThatCompletesEndsWithNothingMore(t *testing.T) {
	for _, lg := range eventLogs {
		t.Run(lg.name, func(t *testing.T) {
			_, ts := start(t, []helikon.Agent{newAgent(t, "slow", 300*time.Millisecond)}, server.WithEventLog(lg.open(t)))
			id := decode[server.RunAccepted](t, post(t, ts.URL+"/agents/slow/runs?mode=async", `{"input":"hi"}`)).RunID
			// The deadline only keeps a stream that never ends from
			// hanging the test.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp := resumeSSE(t, ctx, ts.URL+"/agents/slow/runs/"+id+"/events", 1<<62)
			defer resp.Body.Close()
			fs := readFrames(t, resp.Body)
			if ctx.Err() != nil {
				t.Fatal("the stream past the end of the run never ended")
			}
			if len(fs) != 0 {
				t.Fatalf("the stream: %+v; want none: the run completed", fs)
			}
			info := decode[server.RunInfo](t, get(t, ts.URL+"/agents/slow/runs/"+id))
			if info.Status != server.StatusCompleted {
				t.Fatalf("the run: %+v, want it completed (the test needs the run to end normally)", info)
			}
		})
	}
}

// resumeSSE opens the SSE stream of a running run at url (its events
// endpoint) with Last-Event-ID after, and wants it accepted.
func resumeSSE(t testing.TB, ctx context.Context, url string, after int64) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("status %d, want the stream of the running run", resp.StatusCode)
	}
	return resp
}
