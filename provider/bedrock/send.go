package bedrock

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/paigasus/helikon/internal/sse"
	"github.com/paigasus/helikon/provider/internal/httpx"
)

// eventStreamType is the content type of a ConverseStream response.
const eventStreamType = "application/vnd.amazon.eventstream"

// defaultMaxEventSize bounds one event-stream message, as the HTTP
// adapters bound one SSE event.
const defaultMaxEventSize = 8 << 20

// maxErrorBody bounds how much of an error response (or of a 2xx response
// that is not an event stream) is read: any AWS JSON error fits, a
// misdirected HTML page is quoted from its start.
const maxErrorBody = 64 << 10

// preludeLen is the size of an event-stream message's prelude: total
// length, headers length and the prelude's CRC-32.
const preludeLen = 12

// signingName is the name Bedrock Runtime's requests are signed for (the
// service model's sigv4 signingName, not the endpoint's prefix).
const signingName = "bedrock"

// defaultEndpoint is Bedrock Runtime's regional endpoint: the aws and
// aws-us-gov partitions' amazonaws.com, the China regions' amazonaws.com.cn.
// Other partitions, FIPS and dual-stack endpoints are named with
// [WithBaseEndpoint] or aws.Config.BaseEndpoint.
func defaultEndpoint(region string) string {
	domain := "amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		domain = "amazonaws.com.cn"
	}
	return "https://bedrock-runtime." + region + "." + domain
}

// validRegion reports whether region can stand in a host name: letters,
// digits and dashes, as every AWS region is.
func validRegion(region string) bool {
	for i := range len(region) {
		c := region[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return region != ""
}

// send signs body with SigV4 (or carries the API key) and POSTs it to the model's ConverseStream
// URL. It returns the event stream of a successful response; a failure to
// send comes back as the transport's error, an error response as an
// [*apiError] read from its first maxErrorBody bytes, and a 2xx response
// that is not an event stream as a [*notEventStreamError].
//
// A signed request refused for a clock skew (see skewCorrection) is sent
// once more, signed at the server's time; the offset is kept for the
// model's later requests, as the SDK's clients keep theirs.
func (m *Model) send(ctx context.Context, creds aws.Credentials, body []byte) (io.ReadCloser, error) {
	var resp *http.Response
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("build request: %w", err)
		}
		req.Header.Set("Content-Type", "application/json") // and no Accept, as the SDK sends none
		offset := time.Duration(m.skew.Load())
		if m.bearer != "" {
			req.Header.Set("Authorization", "Bearer "+m.bearer)
		} else {
			sum := sha256.Sum256(body)
			if err := m.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), signingName, m.region, time.Now().Add(offset)); err != nil {
				return nil, fmt.Errorf("sign request: %w", err)
			}
		}
		sentAt := time.Now()
		if resp, err = m.http.Do(req); err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			break
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		apiErr := readAPIError(resp.StatusCode, resp.Header, data)
		if attempt == 0 && m.bearer == "" {
			if skew, ok := skewCorrection(apiErr.code, resp.Header, sentAt, time.Now(), offset); ok {
				m.skew.Store(int64(skew))
				continue
			}
		}
		return nil, apiErr
	}
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr == nil && mt == eventStreamType {
		return resp.Body, nil
	}
	br := bufio.NewReader(resp.Body)
	if !startsWithPrelude(br) {
		defer resp.Body.Close()
		data, _ := io.ReadAll(io.LimitReader(br, maxErrorBody))
		return nil, &notEventStreamError{status: resp.StatusCode,
			msg: fmt.Sprintf("expected an event stream, got content type %q and %s", ct, httpx.DescribeBody(data))}
	}
	return readCloser{br, resp.Body}, nil
}

// startsWithPrelude reports whether the body starts with an event-stream
// prelude whose checksum holds: a stream mislabelled by a proxy still is
// one, an HTML page or an empty body is not.
func startsWithPrelude(br *bufio.Reader) bool {
	p, err := br.Peek(preludeLen)
	if err != nil {
		return false
	}
	return crc32.ChecksumIEEE(p[:8]) == binary.BigEndian.Uint32(p[8:12])
}

// skewThreshold is how far the signing time may be from the server's
// before a signature error is taken for a clock skew: the SDK's (its
// retry package's skewThreshold), inside SigV4's 5-minute window.
const skewThreshold = 4 * time.Minute

// maxTrustedRoundTrip bounds how long a refused request may have taken for
// its response's Date to be trusted, as the SDK bounds it.
const maxTrustedRoundTrip = 15 * time.Minute

// skewCorrection implements the AWS SDKs' clock-skew correction for one
// refused request: when code is one the services answer a skewed signature
// with, and the response's Date (not a cache's: no Age header) puts the
// server's clock more than skewThreshold from the time the request was
// signed at (now + offset), it returns the new offset, the server's clock
// less ours. A signature refused for any other reason (a wrong secret)
// keeps ok false, as does a response without a usable Date.
func skewCorrection(code string, h http.Header, sentAt, receivedAt time.Time, offset time.Duration) (time.Duration, bool) {
	switch code {
	case "InvalidSignatureException", "SignatureDoesNotMatch", "AuthFailure", "RequestTimeTooSkewed", "AccessDeniedException":
	default:
		return 0, false
	}
	if h.Get("Age") != "" || receivedAt.Sub(sentAt) > maxTrustedRoundTrip {
		return 0, false
	}
	server, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return 0, false
	}
	skew := server.Sub(receivedAt)
	if d := skew - offset; d > -skewThreshold && d < skewThreshold {
		return 0, false
	}
	return skew, true
}

type readCloser struct {
	io.Reader
	io.Closer
}

// notEventStreamError is the cause of a 2xx response that is not an event
// stream.
type notEventStreamError struct {
	status int
	msg    string
}

func (e *notEventStreamError) Error() string { return e.msg }
func (e *notEventStreamError) Unwrap() error { return httpx.ErrNotEventStream }

// eventTooLargeError names the size and the limit.
type eventTooLargeError struct{ size, max int64 }

func (e *eventTooLargeError) Error() string {
	return fmt.Sprintf("event-stream message too large: %d bytes, limit %d (WithMaxEventSize)", e.size, e.max)
}

// Unwrap returns the sentinel every adapter's oversized event wraps.
func (e *eventTooLargeError) Unwrap() error { return sse.ErrEventTooLarge }
