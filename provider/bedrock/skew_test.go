package bedrock_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"
	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
	"github.com/paigasus/helikon/provider/providertest"
)

// TestInvoke_ClockSkewIsCorrectedFromTheServersDate: a machine whose clock
// is off by an hour has its first request refused as AWS refuses it
// ("Signature expired" / "not yet current", InvalidSignatureException,
// the server's Date), sends it once more signed at the server's time, and
// signs its later requests there too; a server whose clock keeps moving
// gets the one retry and no more, and a wrong secret none.
func TestInvoke_ClockSkewIsCorrectedFromTheServersDate(t *testing.T) {
	for _, tt := range []struct {
		name             string
		clock, step      time.Duration
		secret           string
		wantErr          string
		wantFirst, total int // requests after the first Invoke, after a second one
	}{
		{name: "server an hour ahead", clock: time.Hour, wantFirst: 2, total: 3},
		{name: "server an hour behind", clock: -time.Hour, wantFirst: 2, total: 3},
		{name: "in sync", wantFirst: 1, total: 2},
		{name: "within SigV4's window", clock: 3 * time.Minute, wantFirst: 1, total: 2},
		{name: "server clock keeps jumping", clock: time.Hour, step: time.Hour, wantErr: "Signature expired", wantFirst: 2, total: 4},
		{name: "wrong secret", secret: "NOT-THE-SECRET", wantErr: "signature we calculated does not match", wantFirst: 1, total: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := stream(t, "testdata/text.jsonl")
			f := newFake(t, text, text)
			f.clock, f.clockStep = tt.clock, tt.step
			f.acceptBadSignatures = true // the refusals are the test
			secret := "SECRET"
			if tt.secret != "" {
				secret = tt.secret
			}
			cfg := aws.Config{Region: testRegion, Credentials: credentials.NewStaticCredentialsProvider("AKID", secret, "")}
			m, err := bedrock.New(cfg, claude, bedrock.WithBaseEndpoint(f.URL))
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []int{tt.wantFirst, tt.total} {
				res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
				if tt.wantErr == "" && res.Err != nil {
					t.Fatalf("invoke %d: %v", i+1, res.Err)
				}
				if tt.wantErr != "" {
					var api smithy.APIError
					if !errors.As(res.Err, &api) || api.ErrorCode() != "InvalidSignatureException" || !strings.Contains(api.ErrorMessage(), tt.wantErr) {
						t.Fatalf("invoke %d: err = %v, want InvalidSignatureException %q", i+1, res.Err, tt.wantErr)
					}
				}
				f.mu.Lock()
				got := f.requests
				f.mu.Unlock()
				if got != want {
					t.Errorf("after invoke %d: %d requests, want %d", i+1, got, want)
				}
			}
		})
	}
}
