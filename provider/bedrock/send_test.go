package bedrock_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// TestInvoke_RequestsAreSignedAsAWSChecksThem: the fake recomputes each
// signature from the SigV4 specification; a session token travels signed,
// an ARN model id (with '/' and ':') is escaped in the path and signed as
// escaped, and a request signed with the wrong secret is refused with
// AWS's InvalidSignatureException, a final error naming the model and
// region: the check the other tests rely on does reject.
func TestInvoke_RequestsAreSignedAsAWSChecksThem(t *testing.T) {
	arn := "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	for _, tt := range []struct {
		name, id, secret, token string
		wantErr                 bool
	}{
		{"static keys", claude, "SECRET", "", false},
		{"session token", claude, "SECRET", "FwoGZXIvYXdzEJr//////////wEaDH", false},
		{"inference profile ARN", arn, "SECRET", "", false},
		{"wrong secret", claude, "NOT-THE-SECRET", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, stream(t, "testdata/text.jsonl"))
			f.acceptBadSignatures = tt.wantErr
			cfg := aws.Config{Region: testRegion, Credentials: credentials.NewStaticCredentialsProvider("AKID", tt.secret, tt.token)}
			m, err := bedrock.New(cfg, tt.id, bedrock.WithBaseEndpoint(f.URL))
			if err != nil {
				t.Fatal(err)
			}
			res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			if !tt.wantErr {
				if res.Err != nil {
					t.Fatal(res.Err)
				}
				if want := "/model/" + strings.NewReplacer(":", "%3A", "/", "%2F").Replace(tt.id) + "/converse-stream"; f.paths[0] != want {
					t.Errorf("path = %s, want %s", f.paths[0], want)
				}
				return
			}
			var me *helikon.ModelError
			var api smithy.APIError
			if !errors.As(res.Err, &me) || me.Kind != helikon.ModelOther || me.Transient() || me.StatusCode != 403 ||
				!errors.As(res.Err, &api) || api.ErrorCode() != "InvalidSignatureException" ||
				!strings.Contains(me.Message, "signature we calculated does not match") || !strings.Contains(me.Message, claude) {
				t.Fatalf("err = %v, want a final InvalidSignatureException naming the model", res.Err)
			}
		})
	}
}

func TestInvoke_NoCredentialsProviderIsErrNoCredentials(t *testing.T) {
	f := newFake(t)
	m, err := bedrock.New(aws.Config{Region: testRegion}, claude, bedrock.WithBaseEndpoint(f.URL))
	if err != nil {
		t.Fatal(err)
	}
	res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
	if !errors.Is(res.Err, bedrock.ErrNoCredentials) || helikon.IsTransient(res.Err) {
		t.Fatalf("err = %v, want a final error wrapping ErrNoCredentials", res.Err)
	}
	if len(f.bodies) != 0 {
		t.Error("a request was sent without credentials")
	}
}

// TestStream_ErrorResponsesInEveryAWSJSONShape: the code comes from the
// X-Amzn-ErrorType header (its ":<url>" suffix dropped) or, without it,
// from the body's __type (its namespace dropped) or code; the message from
// message or Message. A response with no code (a proxy's page) is kept by
// its status and quoted, and an error body is read only to 64 KiB.
func TestStream_ErrorResponsesInEveryAWSJSONShape(t *testing.T) {
	huge := `{"message":"` + strings.Repeat("x", 4<<20) + `"}`
	for _, tt := range []struct {
		name   string
		resp   response
		kind   helikon.ModelErrorKind
		code   string
		quotes []string
	}{
		{"header with url suffix", response{status: 429, header: map[string]string{"X-Amzn-Errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"},
			body: []byte(`{"message":"Too many requests"}`)}, helikon.ModelRateLimited, "ThrottlingException", []string{"Too many requests"}},
		{"namespaced __type in the body", response{status: 400, header: map[string]string{"Content-Type": "application/json"},
			body: []byte(`{"__type":"com.amazon.bedrock.runtime#ValidationException","Message":"Input is too long for requested model."}`)},
			helikon.ModelContextLengthExceeded, "ValidationException", []string{"too long"}},
		{"code in the body", response{status: 503, body: []byte(`{"code":"ServiceUnavailableException","message":"Bedrock is unable to process your request."}`)},
			helikon.ModelUnavailable, "ServiceUnavailableException", []string{"unable to process"}},
		{"unknown code on a 5xx", response{status: 500, body: []byte(`{"__type":"SomethingNewException","message":"new"}`)},
			helikon.ModelUnavailable, "SomethingNewException", []string{"new"}},
		{"unknown code on a 429", response{status: 429, header: map[string]string{"X-Amzn-Errortype": "TooManyRequestsException"}, body: []byte(`{"message":"Rate exceeded"}`)},
			helikon.ModelRateLimited, "TooManyRequestsException", []string{"Rate exceeded"}},
		{"unknown code on a 408", response{status: 408, body: []byte(`{"__type":"RequestTimeoutException","message":"timed out"}`)},
			helikon.ModelTransport, "RequestTimeoutException", []string{"timed out"}},
		{"proxy page without a code", response{status: 502, header: map[string]string{"Content-Type": "text/html"}, body: []byte("<html>502 Bad Gateway</html>")},
			helikon.ModelUnavailable, "", []string{"502 Bad Gateway", "status 502"}},
		{"expired token", response{status: 403, header: map[string]string{"X-Amzn-Errortype": "ExpiredTokenException"}, body: []byte(`{"message":"The security token included in the request is expired"}`)},
			helikon.ModelOther, "ExpiredTokenException", []string{"expired", claude, testRegion}},
		{"error body over the bound", response{status: 400, header: map[string]string{"X-Amzn-Errortype": "ValidationException"}, body: []byte(huge)},
			helikon.ModelOther, "ValidationException", []string{"body starting"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := providertest.Collect(newModel(t, newFake(t, tt.resp).URL, claude).Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			var me *helikon.ModelError
			if !errors.As(res.Err, &me) || me.Kind != tt.kind || me.StatusCode != tt.resp.status {
				t.Fatalf("err = %v, want %s with status %d", res.Err, tt.kind, tt.resp.status)
			}
			var api smithy.APIError
			if !errors.As(res.Err, &api) || api.ErrorCode() != tt.code {
				t.Errorf("err = %v, want code %q", res.Err, tt.code)
			}
			for _, q := range tt.quotes {
				if !strings.Contains(me.Error(), q) {
					t.Errorf("err = %.300v, want it to name %q", me, q)
				}
			}
			if len(me.Error()) > 64<<10 {
				t.Errorf("error text is %d bytes: the body was not bounded", len(me.Error()))
			}
		})
	}
}

// urlRecorder is an aws.HTTPClient that records the URL it was asked for
// and fails the call.
type urlRecorder struct{ url *string }

var errRecorded = errors.New("recorded")

func (r urlRecorder) Do(req *http.Request) (*http.Response, error) {
	*r.url = req.URL.String()
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	return nil, errRecorded
}

func TestNew_EndpointFromTheRegionTheConfigOrTheOption(t *testing.T) {
	creds := credentials.NewStaticCredentialsProvider("AKID", "SECRET", "")
	path := "/model/" + strings.ReplaceAll(claude, ":", "%3A") + "/converse-stream"
	for _, tt := range []struct {
		name   string
		cfg    aws.Config
		opts   []bedrock.Option
		want   string
		errHas string
	}{
		{"region", aws.Config{Region: "eu-west-1"}, nil, "https://bedrock-runtime.eu-west-1.amazonaws.com" + path, ""},
		{"china region", aws.Config{Region: "cn-north-1"}, nil, "https://bedrock-runtime.cn-north-1.amazonaws.com.cn" + path, ""},
		{"config's base endpoint", aws.Config{Region: "us-east-1", BaseEndpoint: aws.String("https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com/")}, nil,
			"https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com" + path, ""},
		{"option over config", aws.Config{Region: "us-east-1", BaseEndpoint: aws.String("https://a.example")},
			[]bedrock.Option{bedrock.WithBaseEndpoint("https://bedrock-runtime-fips.us-east-1.amazonaws.com")}, "https://bedrock-runtime-fips.us-east-1.amazonaws.com" + path, ""},
		{"relative endpoint", aws.Config{Region: "us-east-1"}, []bedrock.Option{bedrock.WithBaseEndpoint("bedrock.local")}, "", "not an absolute http or https URL"},
		// The model's path would land in the query, or be cut off as a
		// fragment, and the request go to another resource.
		{"endpoint with a query", aws.Config{Region: "us-east-1"}, []bedrock.Option{bedrock.WithBaseEndpoint("https://proxy.example/?route=")}, "", "query or fragment"},
		{"endpoint with a fragment", aws.Config{Region: "us-east-1", BaseEndpoint: aws.String("https://proxy.example/#x")}, nil, "", "query or fragment"},
		{"region that is not a host label", aws.Config{Region: "us-east-1.evil.example/x"}, nil, "", "not an AWS region name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			tt.cfg.Credentials, tt.cfg.HTTPClient = creds, urlRecorder{&got}
			m, err := bedrock.New(tt.cfg, claude, tt.opts...)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res := providertest.Collect(m.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			if !errors.Is(res.Err, errRecorded) || !helikon.IsTransient(res.Err) {
				t.Errorf("err = %v, want the client's failure as a Transport error", res.Err)
			}
			if got != tt.want {
				t.Errorf("url = %s, want %s", got, tt.want)
			}
		})
	}
}
