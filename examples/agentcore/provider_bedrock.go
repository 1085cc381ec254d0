//go:build !nobedrock

package main

import (
	"cmp"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
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
	var creds aws.CredentialsProvider = ec2rolecreds.New()
	if key, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"); key != "" && secret != "" {
		creds = credentials.NewStaticCredentialsProvider(key, secret, os.Getenv("AWS_SESSION_TOKEN"))
	}
	cfg := aws.Config{Region: cmp.Or(os.Getenv("AWS_REGION"), os.Getenv("AWS_DEFAULT_REGION")), Credentials: creds}
	return asModel(bedrock.New(cfg, cmp.Or(id, "us.anthropic.claude-sonnet-4-5-20250929-v1:0")))
}
