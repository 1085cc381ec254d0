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
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// bedrockModel returns the Bedrock model named id (default Claude Sonnet
// 4.5) in AWS_REGION (or AWS_DEFAULT_REGION), with the container's
// credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and
// AWS_SESSION_TOKEN) when set, for a run on a workstation; otherwise the
// execution role's, which AgentCore Runtime serves from the microVM's
// metadata service (MMDS) on the EC2 instance metadata protocol. This is
// the AWS SDK's own providers without its config package: the whole chain
// (shared config files, SSO, web identity) links the SDK's STS, SSO and
// sign-in clients, 3.9 MB of the binary and their init work on every
// container start, which a microVM without those files never uses.
func bedrockModel(id string) (helikon.Model, error) {
	var creds aws.CredentialsProvider = ec2rolecreds.New(func(o *ec2rolecreds.Options) {
		o.Client = imds.New(imds.Options{HTTPClient: metadataClient{}})
	})
	if key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"); key != "" && secret != "" {
		creds = credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))
	}
	cfg := aws.Config{Region: cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")), Credentials: creds}
	return asModel(bedrock.New(cfg, cmp.Or(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")))
}

// maxMetadataBody bounds a metadata response: the SDK reads one whole
// before parsing it, and a role's credentials are under 2 KB.
const maxMetadataBody = 64 << 10

// metadataTransport is the SDK's own for the metadata service (it dials
// within 250 ms and waits 500 ms for headers, failing fast where there is
// none); the SDK applies these only to a client it builds itself.
var metadataTransport = &http.Transport{
	DialContext:           (&net.Dialer{Timeout: 250 * time.Millisecond}).DialContext,
	ResponseHeaderTimeout: 500 * time.Millisecond,
}

// metadataClient is the metadata service's HTTP client with its responses
// bounded to maxMetadataBody.
type metadataClient struct{}

func (metadataClient) Do(req *http.Request) (*http.Response, error) {
	resp, err := metadataTransport.RoundTrip(req)
	if err == nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxMetadataBody}
	}
	return resp, err
}

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
