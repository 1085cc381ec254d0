package bedrock_test

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The fake endpoints check every request's SigV4 signature the way AWS
// does, written here from the Signature Version 4 specification
// (docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
// rather than with the signer the adapter uses, so that a request the
// adapter signs wrongly (path escaping, a header left out, the payload
// hash, the scope) fails here as it would at AWS.

// testSecrets are the access keys the fakes know.
var testSecrets = map[string]string{"AKID": "SECRET"}

const (
	testRegion  = "us-east-1"
	testService = "bedrock"
)

// errBadSignature is the cause of a request the fakes reject.
var errBadSignature = errors.New("signature check")

// checkSigV4 verifies r's Authorization header against its method, path,
// query, signed headers and body.
func checkSigV4(r *http.Request, body []byte) error { return checkSigV4At(r, body, time.Now()) }

// errSkewed is the cause of a request signed more than 5 minutes from the
// server's time.
var errSkewed = errors.New("signature outside the 5-minute window")

// checkSigV4At is checkSigV4 on a server whose clock reads now.
func checkSigV4At(r *http.Request, body []byte, now time.Time) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", errBadSignature, fmt.Sprintf(format, args...))
	}
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	if !ok {
		return fail("no AWS4-HMAC-SHA256 Authorization header: %q", r.Header.Get("Authorization"))
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(auth, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 || cred[4] != "aws4_request" {
		return fail("credential %q", fields["Credential"])
	}
	secret, ok := testSecrets[cred[0]]
	if !ok {
		return fail("unknown access key %q", cred[0])
	}
	date := r.Header.Get("X-Amz-Date")
	at, err := time.Parse("20060102T150405Z", date)
	if err != nil || cred[1] != date[:8] {
		return fail("X-Amz-Date %q against scope date %q", date, cred[1])
	}
	// The messages AWS sends for a request outside the window.
	const stamp = "20060102T150405Z"
	if early := now.Add(-5 * time.Minute); at.Before(early) {
		return fmt.Errorf("%w: Signature expired: %s is now earlier than %s (%s - 5 min.)", errSkewed, date, early.UTC().Format(stamp), now.UTC().Format(stamp))
	}
	if late := now.Add(5 * time.Minute); at.After(late) {
		return fmt.Errorf("%w: Signature not yet current: %s is still later than %s (%s + 5 min.)", errSkewed, date, late.UTC().Format(stamp), now.UTC().Format(stamp))
	}
	if cred[2] != testRegion || cred[3] != testService {
		return fail("scope %s/%s, want %s/%s", cred[2], cred[3], testRegion, testService)
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	for _, h := range []string{"host", "x-amz-date", "content-type"} {
		if !slices.Contains(signed, h) {
			return fail("header %s not signed (%v)", h, signed)
		}
	}
	if r.Header.Get("X-Amz-Security-Token") != "" && !slices.Contains(signed, "x-amz-security-token") {
		return fail("session token sent but not signed")
	}
	if !slices.IsSorted(signed) {
		return fail("signed headers not sorted: %v", signed)
	}
	var canon strings.Builder
	canon.WriteString(r.Method + "\n" + escapeTwice(r.URL.EscapedPath()) + "\n" + r.URL.RawQuery + "\n")
	for _, h := range signed {
		var v string
		switch h {
		case "host":
			v = cmp.Or(r.Host, r.URL.Host) // a server's request, a client's
		case "content-length":
			v = strconv.FormatInt(r.ContentLength, 10)
		default:
			v = strings.Join(strings.Fields(strings.Join(r.Header.Values(h), ",")), " ")
		}
		canon.WriteString(h + ":" + v + "\n")
	}
	sum := sha256.Sum256(body)
	canon.WriteString("\n" + fields["SignedHeaders"] + "\n" + hex.EncodeToString(sum[:]))
	creq := sha256.Sum256([]byte(canon.String()))
	scope := strings.Join(cred[1:], "/")
	toSign := "AWS4-HMAC-SHA256\n" + date + "\n" + scope + "\n" + hex.EncodeToString(creq[:])
	key := []byte("AWS4" + secret)
	for _, part := range cred[1:] {
		key = hmacSHA256(key, part)
	}
	if want := hex.EncodeToString(hmacSHA256(key, toSign)); !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		return fail("signature %s, want %s for the canonical request\n%s", fields["Signature"], want, canon.String())
	}
	return nil
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

// escapeTwice is the canonical URI of a service other than S3: the path
// as sent (each segment already URI-encoded) encoded once more, every byte
// but the unreserved ones and '/'.
func escapeTwice(path string) string {
	var b strings.Builder
	for i := range len(path) {
		c := path[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// signatureError is the response AWS gives a request whose signature
// does not hold.
func signatureError(w http.ResponseWriter, err error) {
	w.Header().Set("X-Amzn-Errortype", "InvalidSignatureException:http://internal.amazon.com/coral/com.amazon.coral.service/")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	msg := "The request signature we calculated does not match the signature you provided. " + err.Error()
	if _, skewed, ok := strings.Cut(err.Error(), errSkewed.Error()+": "); ok {
		msg = skewed
	}
	fmt.Fprintf(w, `{"message":%q}`, msg)
}

// verifyingTransport checks the signature of each request it forwards,
// for tests whose server is not the fake (the conformance suite's), and
// answers one that fails as AWS would.
type verifyingTransport struct{}

func (verifyingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.GetBody != nil {
		rc, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		body, _ = io.ReadAll(rc)
	}
	if err := checkSigV4(r, body); err != nil {
		rec := httptest.NewRecorder()
		signatureError(rec, err)
		return rec.Result(), nil
	}
	return http.DefaultTransport.RoundTrip(r)
}
