package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// checkPost returns the HTTP status and JSON-RPC error a POST is refused
// with before the go-sdk sees it — a Content-Type other than
// application/json (415), an Accept without both application/json and
// text/event-stream (406), a body that is not JSON (400, -32700) or not a
// JSON-RPC message (400, -32600) — or nil, with the body's message when it
// is one (not a batch). The go-sdk refuses the same in plain text, which no
// JSON-RPC client can read.
func checkPost(r *http.Request, body []byte) (jsonrpc.Message, int, *rpcError) {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return nil, http.StatusUnsupportedMediaType, invalidRequest(nil, fmt.Sprintf("Content-Type must be application/json, not %q", ct))
	}
	if !acceptsJSONAndEvents(r.Header.Values("Accept")) {
		return nil, http.StatusNotAcceptable, invalidRequest(nil, "Accept must list both application/json and text/event-stream")
	}
	msg, e := checkMessage(bytes.TrimSpace(body))
	if e != nil {
		return nil, http.StatusBadRequest, e
	}
	return msg, 0, nil
}

// acceptsJSONAndEvents reports whether the Accept values admit both media
// types of a streamable-HTTP response, as the go-sdk's handler requires
// (with the same wildcards; parameters such as q are not weighed).
func acceptsJSONAndEvents(values []string) bool {
	var json, events bool
	for _, v := range values {
		for token := range strings.SplitSeq(v, ",") {
			mt, _, err := mime.ParseMediaType(token)
			if err != nil {
				continue
			}
			switch mt {
			case "application/json", "application/*":
				json = true
			case "text/event-stream", "text/*":
				events = true
			case "*/*":
				json, events = true, true
			}
		}
	}
	return json && events
}

// requestOf returns the id (nil for a notification) and method of msg
// when it is a request, which a refusal then names; empty for anything
// else.
func requestOf(msg jsonrpc.Message) (json.RawMessage, string) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return nil, ""
	}
	if !req.IsCall() {
		return nil, req.Method
	}
	id, err := json.Marshal(req.ID.Raw()) // a string or an int64
	if err != nil {
		return nil, req.Method
	}
	return id, req.Method
}

// writeRPCError answers status with e as a JSON-RPC error response.
func writeRPCError(w http.ResponseWriter, status int, e *rpcError) {
	h := w.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(e.encode(), '\n'))
}

// maxCapturedError bounds the plain-text body of a go-sdk refusal kept to
// build the JSON-RPC error from.
const maxCapturedError = 4 << 10

// rpcErrorWriter turns the go-sdk handler's plain-text refusals (an error
// status with text/plain, as http.Error writes them) into JSON-RPC error
// responses with the same status; everything else passes through. The
// go-sdk's unknown-method refusal becomes -32601, any other 4xx -32600 and
// a 5xx -32603. Call finish once the handler returns.
type rpcErrorWriter struct {
	http.ResponseWriter
	id     json.RawMessage // the posted call's id, when the body was one call
	method string          // the posted request's method, when it was one

	wroteHeader bool
	status      int // the refusal's status while capturing
	captured    bytes.Buffer
}

// WriteHeader implements http.ResponseWriter.
func (w *rpcErrorWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	if code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (w *rpcErrorWriter) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		if room := maxCapturedError - w.captured.Len(); room > 0 {
			w.captured.Write(p[:min(len(p), room)])
		}
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// FlushError flushes what passes through; http.ResponseController finds it.
func (w *rpcErrorWriter) FlushError() error {
	if w.status != 0 {
		return nil
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush implements http.Flusher.
func (w *rpcErrorWriter) Flush() { _ = w.FlushError() }

// Unwrap returns the wrapped writer, for http.ResponseController.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the JSON-RPC error of a captured refusal.
func (w *rpcErrorWriter) finish() {
	if w.status == 0 {
		return
	}
	text := strings.TrimSpace(w.captured.String())
	e := &rpcError{id: w.id, code: jsonrpc.CodeInvalidRequest, message: text}
	switch {
	case strings.HasPrefix(text, "JSON RPC not handled") && w.method != "":
		e.code, e.message = jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", w.method)
	case w.status >= 500:
		e.code = jsonrpc.CodeInternalError
	}
	writeRPCError(w.ResponseWriter, w.status, e)
}
