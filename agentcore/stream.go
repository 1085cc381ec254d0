package agentcore

import (
	"bytes"
	"encoding/json"
	"iter"
	"net/http"

	"github.com/paigasus/helikon"
)

// stream writes the run's events as Server-Sent Events, one frame each
// (event: the event's type, data: its JSON), flushed as they come. A
// client that goes away stops the write, and leaving the range cancels the
// run.
func (s *Server) stream(w http.ResponseWriter, events iter.Seq[helikon.Event]) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	buf := make([]byte, 0, 512)
	for ev := range events {
		data, err := json.Marshal(ev)
		if err != nil {
			s.cfg.Logger.Error("agentcore: encode event", "err", err)
			continue
		}
		buf = append(buf[:0], "event: "...)
		buf = append(buf, eventType(data)...)
		buf = append(buf, "\ndata: "...)
		buf = append(buf, data...)
		buf = append(buf, "\n\n"...)
		if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
			return
		}
	}
}

// eventType reads the "type" member an event's JSON starts with (the core
// writes it first).
func eventType(data []byte) []byte {
	const lead = `{"type":"`
	if !bytes.HasPrefix(data, []byte(lead)) {
		return []byte("event")
	}
	rest := data[len(lead):]
	if i := bytes.IndexByte(rest, '"'); i > 0 {
		return rest[:i]
	}
	return []byte("event")
}
