package a2a

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrResponseTooLarge reports a remote response, or stream, past
// [WithMaxResponseBytes].
var ErrResponseTooLarge = errors.New("a2a: the remote's response is too large")

// boundedClient returns a copy of c whose every response body fails with
// [ErrResponseTooLarge] past max bytes, streams included: the JSON-RPC
// client decodes whatever a body holds, so the bound sits below it.
func boundedClient(c *http.Client, max int64) *http.Client {
	bc := *c
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	bc.Transport = boundedTransport{next: rt, max: max}
	return &bc
}

type boundedTransport struct {
	next http.RoundTripper
	max  int64
}

func (t boundedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

type boundedBody struct {
	rc        io.ReadCloser
	left, max int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, b.max)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }
