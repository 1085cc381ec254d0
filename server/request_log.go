package server

import (
	"log/slog"
	"net/http"
)

// statusWriter remembers the status a handler answered, for the log of
// failed requests. Unwrap keeps flushing and hijacking (SSE, WebSocket)
// reaching the connection's writer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush flushes the response: handlers that stream by asserting
// [http.Flusher] rather than through [http.ResponseController] (a mounted
// A2A server's SDK does) must find one.
func (w *statusWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// logFailed logs a request answered with an error status: at ERROR for
// the server's own failures (5xx), at INFO for the caller's (4xx), with the
// principal and, on a run's routes, the run id.
func (s *Server) logFailed(r *http.Request, status int) {
	if status < 400 {
		return
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", status, "principal", PrincipalOf(r.Context()).ID}
	if id := r.PathValue("id"); id != "" {
		attrs = append(attrs, "run", id)
	}
	s.logger.Log(r.Context(), level, "server: request failed", attrs...)
}
