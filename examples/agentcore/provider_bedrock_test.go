//go:build !nobedrock

package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/bedrock"
)

// A metadata service answering the credentials request with 64 MiB fails
// the first call as missing credentials without the body ever being held
// whole: the SDK reads a metadata response entirely before parsing it.
func TestBedrockModel_OversizedMetadataResponseIsBounded(t *testing.T) {
	chunk := []byte(strings.Repeat("A", 1<<20))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut: // the session token
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "21600")
			w.Write([]byte("token"))
		case strings.HasSuffix(r.URL.Path, "/security-credentials/"):
			w.Write([]byte("role"))
		default:
			w.Write([]byte(`{"Code":"Success","AccessKeyId":"`))
			for range 64 {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}
	}))
	defer srv.Close()
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		t.Setenv(v, "")
	}
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
	m, err := bedrockModel("")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var got error
	for _, err := range m.Invoke(context.Background(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}) {
		if err != nil {
			got = err
			break
		}
	}
	runtime.ReadMemStats(&after)
	if !errors.Is(got, bedrock.ErrNoCredentials) {
		t.Errorf("err = %v, want one wrapping ErrNoCredentials", got)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("resolving the credentials allocated %d MiB of a 64 MiB response", alloc>>20)
	}
}
