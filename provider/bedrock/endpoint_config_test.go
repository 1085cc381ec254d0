package bedrock_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// The AWS configuration says where Bedrock Runtime is and how to call it
// in more places than aws.Config's fields: the SDK's client read the
// service's own endpoint (AWS_ENDPOINT_URL_BEDROCK_RUNTIME, a profile's
// services section), the FIPS and dual-stack switches and a Bedrock API
// key (AWS_BEARER_TOKEN_BEDROCK) from the configuration's sources. A
// program whose configuration names a VPC endpoint, FIPS or a key must
// not have its requests go, signed with other credentials, to the public
// endpoint.

// sentRequest is an HTTP client that keeps the request and fails the call.
type sentRequest struct{ req **http.Request }

func (s sentRequest) Do(r *http.Request) (*http.Response, error) {
	*s.req = r
	return nil, errRecorded
}

// isolatedAWSEnv clears the AWS variables of the process and points the
// shared files at an empty directory, so that only what the test sets is
// configured.
func isolatedAWSEnv(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKID")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "SECRET")
}

func TestNew_FollowsTheEndpointAndKeyTheAWSConfigurationNames(t *testing.T) {
	path := "/model/" + strings.ReplaceAll(claude, ":", "%3A") + "/converse-stream"
	for _, tt := range []struct {
		name   string
		env    map[string]string
		url    string // "" when New must refuse
		errHas string
		bearer string
	}{
		{"service endpoint variable", map[string]string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "https://vpce-1.example"}, "https://vpce-1.example" + path, "", ""},
		{"service endpoint over the global one", map[string]string{"AWS_ENDPOINT_URL": "https://all.example", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "https://vpce-1.example"},
			"https://vpce-1.example" + path, "", ""},
		{"global endpoint variable", map[string]string{"AWS_ENDPOINT_URL": "https://all.example"}, "https://all.example" + path, "", ""},
		{"FIPS asked for", map[string]string{"AWS_USE_FIPS_ENDPOINT": "true"}, "", "FIPS", ""},
		{"dual-stack asked for", map[string]string{"AWS_USE_DUALSTACK_ENDPOINT": "true"}, "", "dual-stack", ""},
		{"FIPS with an endpoint named", map[string]string{"AWS_USE_FIPS_ENDPOINT": "true", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "https://bedrock-runtime-fips.us-east-1.amazonaws.com"},
			"https://bedrock-runtime-fips.us-east-1.amazonaws.com" + path, "", ""},
		{"Bedrock API key", map[string]string{"AWS_BEARER_TOKEN_BEDROCK": "ABSKQmVkcm9ja0FQSUtleS1"}, "https://bedrock-runtime.us-east-1.amazonaws.com" + path, "", "ABSKQmVkcm9ja0FQSUtleS1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			isolatedAWSEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg, err := config.LoadDefaultConfig(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var req *http.Request
			cfg.HTTPClient = sentRequest{&req}
			m, err := bedrock.New(cfg, claude)
			if tt.url == "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want New to refuse, saying %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res := providertest.Collect(m.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			if !errors.Is(res.Err, errRecorded) || req == nil {
				t.Fatalf("err = %v, want the request sent", res.Err)
			}
			if got := req.URL.String(); got != tt.url {
				t.Errorf("url = %s, want %s", got, tt.url)
			}
			auth := req.Header.Get("Authorization")
			if tt.bearer != "" {
				if auth != "Bearer "+tt.bearer {
					t.Errorf("Authorization = %q, want the API key as a bearer token", auth)
				}
			} else if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
				t.Errorf("Authorization = %q, want SigV4", auth)
			}
		})
	}
}
