//go:build !nobedrock

package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paigasus/helikon"
)

// fakeMetadata is an instance metadata service as EC2 and AgentCore's
// MMDS answer: a session token for a PUT with a TTL header, then the role
// list and the role's credentials for GETs carrying that token.
type fakeMetadata struct {
	// tokenStatus, when set, answers the token PUT with it (403, 404 or
	// 405 from a service without IMDSv2).
	tokenStatus int
	// failFirst answers the first n requests with a 500.
	failFirst int
	expires   time.Time
	mu        sync.Mutex
	requests  []string
}

const fakeMetadataToken = "AQAEAFakeSessionToken=="

func (f *fakeMetadata) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	n := len(f.requests)
	f.mu.Unlock()
	if n <= f.failFirst {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
		if f.tokenStatus != 0 {
			w.WriteHeader(f.tokenStatus)
			return
		}
		if r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds") == "" {
			w.WriteHeader(http.StatusBadRequest) // IMDS refuses a token request without a TTL
			return
		}
		w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds"))
		_, _ = w.Write([]byte(fakeMetadataToken))
		return
	}
	if f.tokenStatus == 0 && r.Header.Get("X-Aws-Ec2-Metadata-Token") != fakeMetadataToken {
		w.WriteHeader(http.StatusUnauthorized) // IMDSv2 only: a GET without the token
		return
	}
	switch r.URL.Path {
	case "/latest/meta-data/iam/security-credentials/":
		_, _ = w.Write([]byte("AgentCoreExecutionRole"))
	case "/latest/meta-data/iam/security-credentials/AgentCoreExecutionRole":
		_, _ = w.Write([]byte(`{
  "Code" : "Success",
  "LastUpdated" : "2026-12-03T13:00:00Z",
  "Type" : "AWS-HMAC",
  "AccessKeyId" : "ASIAEXAMPLEROLEKEY",
  "SecretAccessKey" : "roleSecret",
  "Token" : "roleSessionToken",
  "Expiration" : "` + f.expires.UTC().Format(time.RFC3339) + `"
}`))
	default:
		http.NotFound(w, r)
	}
}

func TestMetadataCredentials_ProtocolAsTheSDKSpeaksIt(t *testing.T) {
	soon := time.Now().Add(20 * time.Minute).Truncate(time.Second)
	for _, tt := range []struct {
		name      string
		fake      *fakeMetadata
		v1Off     bool
		wantErr   bool
		wantCalls int
		expires   time.Time // zero: capped to an hour from now
	}{
		{name: "IMDSv2", fake: &fakeMetadata{expires: soon}, wantCalls: 3, expires: soon},
		{name: "expiry past an hour is capped", fake: &fakeMetadata{expires: time.Now().Add(6 * time.Hour)}, wantCalls: 3},
		{name: "IMDSv1 when the token is 405", fake: &fakeMetadata{tokenStatus: 405, expires: soon}, wantCalls: 3, expires: soon},
		{name: "IMDSv1 when the token is 403", fake: &fakeMetadata{tokenStatus: 403, expires: soon}, wantCalls: 3, expires: soon},
		{name: "no fallback with IMDSv1 disabled", fake: &fakeMetadata{tokenStatus: 403}, v1Off: true, wantErr: true, wantCalls: 1},
		{name: "a 400 token answer is final", fake: &fakeMetadata{tokenStatus: 400}, wantErr: true, wantCalls: 1},
		{name: "5xx tried again", fake: &fakeMetadata{failFirst: 2, expires: soon}, wantCalls: 5, expires: soon},
		{name: "5xx three times fails", fake: &fakeMetadata{failFirst: 3}, wantErr: true, wantCalls: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.fake)
			defer srv.Close()
			t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL+"/")
			t.Setenv("AWS_EC2_METADATA_DISABLED", "")
			t.Setenv("AWS_EC2_METADATA_V1_DISABLED", map[bool]string{true: "true"}[tt.v1Off])
			creds, err := metadataCredentials{}.Retrieve(context.Background())
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if got := len(tt.fake.requests); got != tt.wantCalls {
				t.Errorf("%d requests %v, want %d", got, tt.fake.requests, tt.wantCalls)
			}
			if err != nil {
				return
			}
			if creds.AccessKeyID != "ASIAEXAMPLEROLEKEY" || creds.SecretAccessKey != "roleSecret" || creds.SessionToken != "roleSessionToken" || !creds.CanExpire {
				t.Errorf("credentials %+v", creds)
			}
			want := tt.expires
			if want.IsZero() {
				if d := time.Until(creds.Expires); d > time.Hour || d < 59*time.Minute {
					t.Errorf("expires in %s, want an hour (the SDK's cap)", d)
				}
			} else if !creds.Expires.Equal(want) {
				t.Errorf("expires %s, want %s", creds.Expires, want)
			}
		})
	}
}

func TestMetadataCredentials_DisabledLooksNothingUp(t *testing.T) {
	fake := &fakeMetadata{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if _, err := (metadataCredentials{}).Retrieve(context.Background()); !errors.Is(err, errMetadataDisabled) {
		t.Errorf("err = %v, want errMetadataDisabled", err)
	}
	if len(fake.requests) != 0 {
		t.Errorf("requests %v, want none", fake.requests)
	}
}

// The Bedrock model of the example signs its requests with the role's
// credentials from the metadata service, session token included.
func TestBedrockModel_SignsWithTheExecutionRole(t *testing.T) {
	md := httptest.NewServer(&fakeMetadata{expires: time.Now().Add(time.Hour)})
	defer md.Close()
	var mu sync.Mutex
	var auth, token string
	bedrockSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth, token = r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")
		mu.Unlock()
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.coral.service/")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"message":"You don't have access to the model with the specified model ID."}`))
	}))
	defer bedrockSrv.Close()
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_BEARER_TOKEN_BEDROCK", "AWS_EC2_METADATA_DISABLED"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", md.URL)
	t.Setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", bedrockSrv.URL)
	m, err := bedrockModel("")
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range m.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
		if err != nil {
			got = err
			break
		}
	}
	if got == nil || !strings.Contains(got.Error(), "access to the model") {
		t.Errorf("err = %v, want the endpoint's AccessDeniedException", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(auth, "Credential=ASIAEXAMPLEROLEKEY/") || token != "roleSessionToken" {
		t.Errorf("Authorization %q, X-Amz-Security-Token %q: want the role's key and session token", auth, token)
	}
}
