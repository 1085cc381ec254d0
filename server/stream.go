package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"

	"github.com/paigasus/helikon"
)

// follow tails the run's records after position after and hands each
// batch to emit, stopping after the run's terminal record. When the log
// ends without one (the run was finished without its terminal event, or
// the log failed), emit gets a synthetic run_failed record with Seq 0, so a
// streaming client always sees a terminal frame. It returns false when
// emit did (the client went away) or ctx ended.
func (s *Server) follow(ctx context.Context, runID string, after int64, emit func([]Record) bool) bool {
	// Shutdown ends every stream, including those the HTTP server no
	// longer tracks (hijacked WebSocket connections).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.connCtx, cancel)
	defer stop()
	var tailErr error
	sent := false
	for batch, err := range s.log.Tail(ctx, runID, after) {
		if err != nil {
			tailErr = err
			break
		}
		for i, rec := range batch {
			if rec.Terminal() {
				return emit(batch[:i+1])
			}
		}
		sent = sent || len(batch) > 0
		if !emit(batch) {
			return false
		}
	}
	if ctx.Err() != nil {
		return false
	}
	// A client resuming after the run's terminal event (an EventSource
	// reconnects by itself once a finished stream closes) has the whole
	// run: its stream ends with nothing more.
	if tailErr == nil && !sent && (s.terminalAt(ctx, runID, after) || s.completedBefore(ctx, runID, after)) {
		return true
	}
	return emit([]Record{s.syntheticFailure(ctx, runID, tailErr)})
}

// completedBefore reports whether the run completed with its last event
// before position seq: a stream resumed past the end of a run still
// running, which then completes, has nothing to send and nothing went
// wrong. A run that failed, was cancelled or was interrupted still ends
// such a stream with its error.
func (s *Server) completedBefore(ctx context.Context, runID string, seq int64) bool {
	info, err := s.log.Info(ctx, runID)
	return err == nil && info.Status == StatusCompleted && info.LastEvent > 0 && info.LastEvent < seq
}

// terminalAt reports whether the run's record at position seq is its
// terminal one.
func (s *Server) terminalAt(ctx context.Context, runID string, seq int64) bool {
	if seq < 1 {
		return false
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for batch, err := range s.log.Tail(ctx, runID, seq-1) {
		return err == nil && len(batch) > 0 && batch[0].Seq == seq && batch[0].Terminal()
	}
	return false
}

// syntheticFailure is the run_failed record a stream ends with when the
// log holds none.
func (s *Server) syntheticFailure(ctx context.Context, runID string, tailErr error) Record {
	ae := &helikon.AgentError{Kind: helikon.KindOther, Message: "the run ended without a terminal event"}
	if tailErr != nil {
		ae.Message = "reading the run's events failed: " + tailErr.Error()
	} else if info, err := s.log.Info(ctx, runID); err == nil && info.Error != nil {
		ae = info.Error
	}
	var usage helikon.Usage
	data, _ := json.Marshal(helikon.RunFailed{At: time.Now().UTC(), Err: ae, Usage: usage})
	return Record{Type: "run_failed", Data: data}
}

// streamSSE writes the run's events as Server-Sent Events: one frame per
// event, with event: its type and id: its position, flushed per batch. It
// reports whether the client went away: a write or a flush failed.
func (s *Server) streamSSE(w http.ResponseWriter, r *http.Request, runID string, after int64) (gone bool) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if rc.Flush() != nil {
		return true
	}
	buf := make([]byte, 0, 2048)
	s.follow(r.Context(), runID, after, func(batch []Record) bool {
		buf = buf[:0]
		for _, rec := range batch {
			buf = appendFrame(buf, rec)
		}
		if _, err := w.Write(buf); err != nil {
			gone = true
			return false
		}
		gone = rc.Flush() != nil
		return !gone
	})
	return gone
}

// appendFrame appends rec as one SSE frame. A synthetic record (Seq 0)
// carries no id, so a client's Last-Event-ID stays on the last real event.
// Event JSON holds no raw newline, so one data line carries it.
func appendFrame(buf []byte, rec Record) []byte {
	if rec.Seq > 0 {
		buf = append(buf, "id: "...)
		buf = strconv.AppendInt(buf, rec.Seq, 10)
		buf = append(buf, '\n')
	}
	buf = append(buf, "event: "...)
	buf = append(buf, rec.Type...)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, rec.Data...)
	return append(buf, "\n\n"...)
}

// streamWebSocket replays and follows the run over a WebSocket, one text
// message per event (its JSON, with its position as a leading "seq"
// member, which a synthetic record goes without), then closes with a
// normal closure.
func (s *Server) streamWebSocket(w http.ResponseWriter, r *http.Request, runID string, after int64) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept answered the client
	}
	defer c.CloseNow()
	// The client sends nothing; CloseRead answers its pings and closes,
	// and cancels ctx when it goes away.
	ctx := c.CloseRead(r.Context())
	var buf []byte
	ok := s.follow(ctx, runID, after, func(batch []Record) bool {
		for _, rec := range batch {
			buf = appendMessage(buf[:0], rec)
			if err := c.Write(ctx, websocket.MessageText, buf); err != nil {
				return false
			}
		}
		return true
	})
	if ok {
		_ = c.Close(websocket.StatusNormalClosure, "run ended")
	} else if errors.Is(context.Cause(ctx), context.Canceled) && s.connCtx.Err() != nil {
		_ = c.Close(websocket.StatusGoingAway, "server shutting down")
	}
}

// appendMessage appends rec as one WebSocket message: its JSON object
// with "seq" (its position, what an SSE frame's id: carries) as the first
// member, so a client resumes with ?after= without counting.
func appendMessage(buf []byte, rec Record) []byte {
	if rec.Seq <= 0 || len(rec.Data) < 2 || rec.Data[0] != '{' {
		return append(buf, rec.Data...)
	}
	buf = append(buf, `{"seq":`...)
	buf = strconv.AppendInt(buf, rec.Seq, 10)
	if rec.Data[1] != '}' {
		buf = append(buf, ',')
	}
	return append(buf, rec.Data[1:]...)
}
