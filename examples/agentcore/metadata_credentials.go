//go:build !nobedrock

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// metadataCredentials is the execution role's credentials from the
// instance metadata service, which AgentCore Runtime's microVM serves
// (MMDS) on the EC2 instance metadata protocol: a session token (IMDSv2),
// the role's name, then its credentials. It speaks the protocol the AWS
// SDK's ec2rolecreds provider speaks — the same paths, headers, endpoint
// variables, the IMDSv1 fallback when the token is refused with 403, 404
// or 405, credentials kept at most an hour — without linking the SDK's
// metadata client, whose middleware stack, retryer and rate limiter added
// 373 KB to the container binary for three GET requests.
type metadataCredentials struct{ client *http.Client }

// The protocol's paths and headers (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
// instancedata-data-retrieval.html and iam-roles-for-amazon-ec2.html).
const (
	metadataTokenPath  = "/latest/api/token"
	metadataCredsPath  = "/latest/meta-data/iam/security-credentials/"
	metadataTokenTTL   = "X-Aws-Ec2-Metadata-Token-Ttl-Seconds"
	metadataTokenHdr   = "X-Aws-Ec2-Metadata-Token"
	metadataTokenLife  = "21600" // the SDK's six hours
	metadataAttempts   = 3       // the SDK's retryer's
	metadataRetryPause = 100 * time.Millisecond
)

// metadataEndpoint is the service's address: AWS_EC2_METADATA_SERVICE_ENDPOINT,
// else the IPv6 one under AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6, else
// the IPv4 one, as the SDK resolves it.
func metadataEndpoint() string {
	if e := os.Getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"); e != "" {
		return strings.TrimRight(e, "/")
	}
	if strings.EqualFold(os.Getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"), "IPv6") {
		return "http://[fd00:ec2::254]"
	}
	return "http://169.254.169.254"
}

// errMetadataDisabled reports AWS_EC2_METADATA_DISABLED=true: no role
// credentials are looked for.
var errMetadataDisabled = errors.New("instance metadata service disabled by AWS_EC2_METADATA_DISABLED")

// metadataStatusError is a metadata response that is not a 200.
type metadataStatusError struct {
	method, path string
	status       int
}

func (e *metadataStatusError) Error() string {
	return fmt.Sprintf("metadata service: %s %s: status %d", e.method, e.path, e.status)
}

// Retrieve fetches the role's credentials. The caller caches them (the
// Bedrock model wraps its provider in an aws.CredentialsCache) until
// Expires, at most an hour away as the SDK caps them.
func (p metadataCredentials) Retrieve(ctx context.Context) (aws.Credentials, error) {
	if strings.EqualFold(os.Getenv("AWS_EC2_METADATA_DISABLED"), "true") {
		return aws.Credentials{}, errMetadataDisabled
	}
	base := metadataEndpoint()
	token, err := p.get(ctx, http.MethodPut, base+metadataTokenPath, "")
	var se *metadataStatusError
	switch {
	case err == nil:
	case errors.As(err, &se) && (se.status == http.StatusForbidden || se.status == http.StatusNotFound || se.status == http.StatusMethodNotAllowed) &&
		!strings.EqualFold(os.Getenv("AWS_EC2_METADATA_V1_DISABLED"), "true"):
		token = "" // a service without IMDSv2: the SDK falls back to IMDSv1
	default:
		return aws.Credentials{}, fmt.Errorf("metadata session token: %w", err)
	}
	roles, err := p.get(ctx, http.MethodGet, base+metadataCredsPath, token)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("no role in the instance metadata: %w", err)
	}
	role, _, _ := strings.Cut(strings.TrimSpace(roles), "\n")
	if role = strings.TrimSpace(role); role == "" || strings.ContainsAny(role, "/?#") {
		return aws.Credentials{}, fmt.Errorf("instance metadata role list %q names no role", roles)
	}
	body, err := p.get(ctx, http.MethodGet, base+metadataCredsPath+role, token)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("role %s credentials: %w", role, err)
	}
	var v struct {
		Code, Message          string
		AccessKeyID            string `json:"AccessKeyId"`
		SecretAccessKey, Token string
		Expiration             time.Time
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return aws.Credentials{}, fmt.Errorf("role %s credentials: %w", role, err)
	}
	if !strings.EqualFold(v.Code, "Success") || v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return aws.Credentials{}, fmt.Errorf("role %s credentials: code %q: %s", role, v.Code, v.Message)
	}
	expires := v.Expiration
	if hour := time.Now().Add(time.Hour); expires.IsZero() || expires.After(hour) {
		expires = hour
	}
	return aws.Credentials{AccessKeyID: v.AccessKeyID, SecretAccessKey: v.SecretAccessKey, SessionToken: v.Token,
		Source: "EC2RoleProvider", CanExpire: true, Expires: expires}, nil
}

// get makes one metadata request, tried again after a failed connection
// or a 5xx (metadataAttempts in all), and returns its body, bounded to
// maxMetadataBody.
func (p metadataCredentials) get(ctx context.Context, method, url, token string) (string, error) {
	var err error
	for attempt := range metadataAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(time.Duration(attempt) * metadataRetryPause):
			}
		}
		var body string
		var retry bool
		if body, retry, err = p.getOnce(ctx, method, url, token); err == nil || !retry {
			return body, err
		}
	}
	return "", err
}

func (p metadataCredentials) getOnce(ctx context.Context, method, url, token string) (body string, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return "", false, err
	}
	if method == http.MethodPut {
		req.Header.Set(metadataTokenTTL, metadataTokenLife)
	} else if token != "" {
		req.Header.Set(metadataTokenHdr, token)
	}
	resp, err := cmp.Or(p.client, metadataHTTPClient).Do(req)
	if err != nil {
		return "", ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", resp.StatusCode >= 500, &metadataStatusError{method: method, path: req.URL.Path, status: resp.StatusCode}
	}
	data, err := io.ReadAll(&cappedBody{ReadCloser: resp.Body, left: maxMetadataBody})
	return string(data), false, err
}
