// Package httpx holds the HTTP plumbing the provider adapters share: sending
// a streaming request, reading the retry hint of a throttled response, and
// turning transport failures into [helikon.ModelError] values.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paigasus/helikon"
)

// maxErrorBody bounds how much of an error response is read: enough for any
// provider's JSON error, never a whole misdirected HTML page.
const maxErrorBody = 64 << 10

// Post sends body as JSON to url with the given headers and returns the
// response when its status is 2xx. A transport failure comes back as a
// Transport [helikon.ModelError]; a non-2xx status is read (bounded), the
// body closed, and classify turns it into the error to report.
func Post(ctx context.Context, client *http.Client, url string, header http.Header, body []byte,
	classify func(status int, h http.Header, body []byte) *helikon.ModelError) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	return nil, classify(resp.StatusCode, resp.Header, data)
}

// ErrBaseURLQuery reports an API root with a query or a fragment: the
// adapter appends the API's path to the root, so the path would land in the
// query or the fragment and the request go to another resource.
var ErrBaseURLQuery = errors.New("base URL has a query or fragment")

// BaseURL checks an API root given to an adapter and returns it without a
// trailing slash. A root that is not an absolute http or https URL, or that
// has a query or a fragment ([ErrBaseURLQuery], even an empty one), fails
// here, in the constructor, rather than as a retryable transport error or a
// request to the wrong resource on every call.
func BaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http or https URL", raw)
	}
	// Neither byte can stand unescaped in a host or a path.
	if strings.ContainsAny(raw, "?#") {
		return "", fmt.Errorf("%q: %w", raw, ErrBaseURLQuery)
	}
	return strings.TrimRight(raw, "/"), nil
}

// RetryAfter reads the provider's retry hint: retry-after-ms (milliseconds,
// sent by OpenAI), else retry-after as seconds or as an HTTP date. It returns
// zero when there is no usable hint.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// ClassifyHTTP reads a non-2xx response the way both providers shape it:
// it decodes the {"error": E} envelope, lets classify refine [StatusKind]
// by the error object (nil when the body is not such an envelope), and
// fills in the status, the raw body when the error carries no message, and
// the retry hint of a throttled response.
func ClassifyHTTP[E any](status int, h http.Header, body []byte, classify func(helikon.ModelErrorKind, *E) *helikon.ModelError) *helikon.ModelError {
	var env struct {
		Error *E `json:"error"`
	}
	_ = json.Unmarshal(body, &env) // a body that is not the envelope still reports its status
	me := classify(StatusKind(status), env.Error)
	me.StatusCode = status
	if me.Message == "" {
		me.Message = strings.TrimSpace(string(body))
	}
	if me.Kind == helikon.ModelRateLimited {
		me.RetryAfter = RetryAfter(h, time.Now())
	}
	return me
}

// StatusKind is the kind an HTTP status maps to before a provider looks at
// the error body: 429 throttling, 5xx (and Anthropic's 529) unavailability,
// 408 a transport timeout, anything else a non-retryable error.
func StatusKind(status int) helikon.ModelErrorKind {
	switch {
	case status == http.StatusTooManyRequests:
		return helikon.ModelRateLimited
	case status == http.StatusRequestTimeout:
		return helikon.ModelTransport
	case status >= 500:
		return helikon.ModelUnavailable
	}
	return helikon.ModelOther
}

// ErrStreamTruncated reports a stream that ended before its terminal event.
var ErrStreamTruncated = errors.New("stream ended before its terminal event")

// TransportError wraps err (a failed send or read) for provider, preferring
// the context's error when ctx ended so callers see context.Canceled.
func TransportError(ctx context.Context, provider string, err error) *helikon.ModelError {
	if cerr := ctx.Err(); cerr != nil {
		err = cerr
	}
	return &helikon.ModelError{Kind: helikon.ModelTransport, Provider: provider, Err: err}
}
