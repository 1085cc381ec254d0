//go:build !nobedrock

package main

import (
	"cmp"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// bedrockModel returns the Bedrock model named id (default Claude Sonnet
// 4.5) in AWS_REGION (or AWS_DEFAULT_REGION), at AWS_ENDPOINT_URL_BEDROCK_RUNTIME
// (or AWS_ENDPOINT_URL) when set, with the container's
// credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
// AWS_SESSION_TOKEN) when set, for a run on a workstation; otherwise the
// execution role's, which AgentCore Runtime serves from the microVM's
// metadata service (MMDS) on the EC2 instance metadata protocol
// (metadataCredentials). This is neither the AWS SDK's config package nor
// its metadata client: the whole chain (shared config files, SSO, web
// identity) links the SDK's STS, SSO and sign-in clients, 3.9 MB of the
// binary and their init work on every container start, which a microVM
// without those files never uses, and the metadata client its middleware
// stack and retryer, 377 KB more. The SDK's client would be the better
// kept one, but it takes the Bedrock and SQLite build on AgentCore's
// linux/arm64 from 12,189,858 B to 12,583,074 B, past 12 MiB (measured
// 2026-12-03 at eeb016b), so the example keeps its own, tested against the
// protocol as the SDK speaks it (metadata_credentials_test.go).
func bedrockModel(id string) (helikon.Model, error) {
	var creds aws.CredentialsProvider = metadataCredentials{}
	if key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"); key != "" && secret != "" {
		creds = credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))
	}
	cfg := aws.Config{Region: cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")), Credentials: creds}
	var opts []bedrock.Option
	// The endpoint variables the SDK's configuration reads (a VPC
	// endpoint), read here since cfg has no configuration sources.
	if e := cmp.Or(os.Getenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME"), os.Getenv("AWS_ENDPOINT_URL")); e != "" {
		opts = append(opts, bedrock.WithBaseEndpoint(e))
	}
	return asModel(bedrock.New(cfg, cmp.Or(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0"), opts...))
}

// maxMetadataBody bounds a metadata response: a role's credentials are
// under 2 KB.
const maxMetadataBody = 64 << 10

// metadataHTTPClient has the SDK's timeouts for the metadata service: it
// dials within 250 ms and waits 500 ms for headers, failing fast where
// there is none.
var metadataHTTPClient = &http.Client{Transport: &http.Transport{
	DialContext:           (&net.Dialer{Timeout: 250 * time.Millisecond}).DialContext,
	ResponseHeaderTimeout: 500 * time.Millisecond,
}}

// errMetadataTooLarge fails a metadata response over maxMetadataBody.
var errMetadataTooLarge = errors.New("metadata service response over 64 KiB")

type cappedBody struct {
	io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errMetadataTooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
