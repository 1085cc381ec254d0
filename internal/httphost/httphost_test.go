package httphost_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/httphost"
	"github.com/paigasus/helikon/internal/rawhttp"
)

// serve runs h behind httphost.Serve on a loopback port until the test
// ends, and returns its address.
func serve(t *testing.T, h http.Handler) string {
	return rawhttp.Serve(t, func(ctx context.Context, ln net.Listener) error {
		return httphost.Serve(ctx, ln, h, time.Second)
	})
}

// raw sends req and decodes the error shape, when the body is one.
func raw(t *testing.T, addr, req string) (*http.Response, httphost.ErrorBody, string) {
	t.Helper()
	resp, data := rawhttp.Do(t, addr, req)
	var body httphost.ErrorBody
	_ = json.Unmarshal(data, &body)
	return resp, body, string(data)
}

func mux() http.Handler {
	m := http.NewServeMux()
	m.Handle("/thing", httphost.Methods{
		http.MethodGet: func(w http.ResponseWriter, _ *http.Request) { httphost.WriteJSON(w, 200, map[string]int{"ok": 1}) },
		http.MethodPut: func(w http.ResponseWriter, _ *http.Request) {},
	})
	m.HandleFunc("/plain", func(w http.ResponseWriter, _ *http.Request) {
		// Looks like a rejection but is a handler's: it must pass through.
		w.Header().Set("Connection", "close")
		http.Error(w, "431 Request Header Fields Too Large", http.StatusRequestHeaderFieldsTooLarge)
	})
	m.HandleFunc("/", httphost.NotFound)
	return m
}

func TestServe_EveryRejectionIsTheJSONErrorShape(t *testing.T) {
	addr := serve(t, mux())
	tests := []struct {
		name, req string
		status    int
		code      string
		message   string
		allow     string
	}{
		{"oversized headers", "GET /thing HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n",
			431, httphost.CodeHeaderTooLarge, "headers are too large", ""},
		{"malformed request line", "GET\r\n\r\n", 400, httphost.CodeBadRequest, "malformed request", ""},
		{"missing host", "GET /thing HTTP/1.1\r\n\r\n", 400, httphost.CodeBadRequest, "malformed request: missing required Host header", ""},
		{"unknown transfer coding", "POST /thing HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: rot13\r\n\r\n", 501, httphost.CodeNotImplemented, "unsupported transfer encoding", ""},
		{"unknown route", "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, httphost.CodeNotFound, "no route for /nope", ""},
		{"wrong method", "DELETE /thing HTTP/1.1\r\nHost: x\r\n\r\n", 405, httphost.CodeMethodNotAllowed, "use GET, PUT", "GET, PUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body, text := raw(t, addr, tt.req)
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/json" || body.Error == nil {
				t.Fatalf("%s %q: %s", resp.Status, resp.Header.Get("Content-Type"), text)
			}
			if body.Error.Code != tt.code || !strings.Contains(body.Error.Message, tt.message) {
				t.Errorf("error %+v, want code %s and a message with %q", body.Error, tt.code, tt.message)
			}
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
		})
	}
}

func TestServe_AHandlersOwnPlainTextAnswerPassesThrough(t *testing.T) {
	addr := serve(t, mux())
	resp, _, text := raw(t, addr, "GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 431 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || text != "431 Request Header Fields Too Large\n" {
		t.Fatalf("%s %q: %q", resp.Status, resp.Header.Get("Content-Type"), text)
	}
}

// A client that sends its headers and then stalls is answered 408 once the
// body deadline passes; the deadline is short here so the test is quick.
func TestReadBody_StalledBodyIs408(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, e := httphost.ReadBody(w, r, 1<<20, 50*time.Millisecond); e != nil {
			httphost.Write(w, e)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	addr := serve(t, h)
	resp, body, text := raw(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"a\":")
	if resp.StatusCode != http.StatusRequestTimeout || body.Error == nil || body.Error.Code != httphost.CodeBodyTimeout {
		t.Fatalf("%s: %s", resp.Status, text)
	}
}

func TestReadBody_LimitAndCompleteBody(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, e := httphost.ReadBody(w, r, 8, time.Minute)
		if e != nil {
			httphost.Write(w, e)
			return
		}
		httphost.WriteJSON(w, http.StatusOK, string(b))
	})
	addr := serve(t, h)
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"within the limit", "12345678", 200, ""},
		{"past the limit", "123456789", 413, httphost.CodeBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := "POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(tt.body)) + "\r\n\r\n" + tt.body
			resp, body, text := raw(t, addr, req)
			if resp.StatusCode != tt.status || (tt.code != "" && (body.Error == nil || body.Error.Code != tt.code)) {
				t.Fatalf("%s: %s", resp.Status, text)
			}
		})
	}
}

// DecodeStrict refuses what is not exactly one known value;
// DecodeIgnoringUnknown differs only in skipping unknown members (nested
// ones too), which still count towards the depth bound.
func TestDecodeStrict_RefusesWhatIsNotExactlyOneKnownValue(t *testing.T) {
	type req struct {
		Prompt string `json:"prompt"`
		N      int    `json:"n"`
	}
	tests := []struct {
		name, body    string
		field, substr string
		lenientOK     bool // DecodeIgnoringUnknown takes it
	}{
		{"ok", `{"prompt":"hi","n":1} `, "", "", true},
		{"syntax", `{"prompt":`, "", "malformed JSON", false},
		{"unknown member", `{"promt":"hi"}`, "", "unknown field", true},
		{"unknown members of every type", `{"prompt":"hi","a":{"b":[1,"c",null,true]},"d":null}`, "", "unknown field", true},
		{"wrong type names the field", `{"n":"x"}`, "n", "malformed JSON", false},
		{"two values", `{}{}`, "", "more than one JSON value", false},
		{"stray bracket after the value", `{"prompt":"a"}]`, "", "after the value", false},
		{"garbage after the value", `{"prompt":"a"} x`, "", "after the value", false},
		{"too deep", `{"prompt":"a","x":` + strings.Repeat("[", 10) + strings.Repeat("]", 10) + `}`, "", "nested too deeply", false},
		{"invalid UTF-8", "{\"prompt\":\"\xff\"}", "", "UTF-8", false},
	}
	decoders := []struct {
		name    string
		decode  func([]byte, int, any) *httphost.Error
		lenient bool
	}{{"DecodeStrict", httphost.DecodeStrict, false}, {"DecodeIgnoringUnknown", httphost.DecodeIgnoringUnknown, true}}
	for _, d := range decoders {
		for _, tt := range tests {
			t.Run(d.name+"/"+tt.name, func(t *testing.T) {
				var v req
				e := d.decode([]byte(tt.body), 8, &v)
				if tt.substr == "" || d.lenient && tt.lenientOK {
					if e != nil {
						t.Fatalf("unexpected error %+v", e)
					}
					if v.Prompt != "hi" && strings.Contains(tt.body, `"prompt":"hi"`) {
						t.Fatalf("prompt = %q", v.Prompt)
					}
					return
				}
				if e == nil || e.Status != 400 || e.Code != httphost.CodeInvalidJSON || e.Field != tt.field || !strings.Contains(e.Message, tt.substr) {
					t.Fatalf("error %+v, want 400 invalid_json field %q with %q", e, tt.field, tt.substr)
				}
			})
		}
	}
}

func TestWrite_RetryAfterRoundsUpToWholeSeconds(t *testing.T) {
	addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e := httphost.Errorf(http.StatusServiceUnavailable, httphost.CodeUnavailable, "", "busy")
		e.RetryAfter = 1500 * time.Millisecond
		httphost.Write(w, e)
	}))
	resp, body, _ := raw(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || body.Error.Message != "busy" {
		t.Fatalf("%s Retry-After %q %+v", resp.Status, resp.Header.Get("Retry-After"), body.Error)
	}
}
