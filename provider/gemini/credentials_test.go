package gemini_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/provider/gemini"
	"github.com/paigasus/helikon/provider/providertest"
	"golang.org/x/oauth2"
)

// tokenSeq hands out ya29.1, ya29.2, … each valid for life.
type tokenSeq struct {
	n    atomic.Int32
	life time.Duration
}

func (s *tokenSeq) Token() (*oauth2.Token, error) {
	n := s.n.Add(1)
	return &oauth2.Token{AccessToken: "ya29." + strconv.Itoa(int(n)), Expiry: time.Now().Add(s.life)}, nil
}

type failingSource struct{ err error }

func (f failingSource) Token() (*oauth2.Token, error) { return nil, f.err }

func bearers(c *capture) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, h := range c.headers {
		out = append(out, h.Get("Authorization"))
	}
	return out
}

func TestVertex_WithTokenSourceSendsItsTokenOnEachRequest(t *testing.T) {
	for _, tt := range []struct {
		name string
		// life is how long each token is valid: oauth2 takes a token due
		// to expire within 10 s as expired.
		life time.Duration
		want []string
	}{
		{"a token about to expire is fetched again", time.Second, []string{"Bearer ya29.1", "Bearer ya29.2", "Bearer ya29.3"}},
		{"a valid token is reused", time.Hour, []string{"Bearer ya29.1", "Bearer ya29.1", "Bearer ya29.1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := serve(t, "testdata/text.sse")
			ts := &tokenSeq{life: tt.life}
			m, err := gemini.Vertex("gemini-2.5-flash", "my-proj", gemini.WithBaseURL(srv.URL), gemini.WithTokenSource(ts))
			if err != nil {
				t.Fatal(err)
			}
			for range len(tt.want) {
				if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")})); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
			if got := bearers(c); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Authorization headers = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVertex_TokenSourceFailureFailsBeforeSending(t *testing.T) {
	for _, tt := range []struct {
		name  string
		err   error
		kind  helikon.ModelErrorKind
		retry bool
	}{
		{"credentials refused by the token endpoint", &oauth2.RetrieveError{Response: &http.Response{StatusCode: 400},
			Body: []byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`)}, helikon.ModelOther, false},
		{"token endpoint unreachable", errors.New("dial tcp: lookup oauth2.googleapis.com: no such host"), helikon.ModelTransport, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, c := serve(t, "testdata/text.sse")
			m, err := gemini.Vertex("gemini-2.5-flash", "my-proj", gemini.WithBaseURL(srv.URL), gemini.WithTokenSource(failingSource{tt.err}))
			if err != nil {
				t.Fatal(err)
			}
			res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")}))
			var me *helikon.ModelError
			if !errors.As(res.Err, &me) || me.Kind != tt.kind || me.Transient() != tt.retry || !errors.Is(res.Err, tt.err) ||
				!strings.Contains(me.Error(), "Vertex AI access token") {
				t.Errorf("err = %v, want %s (retryable %v) about the Vertex AI access token, wrapping the source's error", res.Err, tt.kind, tt.retry)
			}
			if len(res.Events) != 0 || len(bearers(c)) != 0 {
				t.Errorf("%d events, %d requests sent without a token", len(res.Events), len(bearers(c)))
			}
		})
	}
}

// adc is a fake Google OAuth 2.0 token endpoint and a service-account key
// file whose token_uri points at it, for Application Default Credentials
// through GOOGLE_APPLICATION_CREDENTIALS.
type adc struct {
	file    string
	key     *rsa.PrivateKey
	mu      sync.Mutex
	grants  int
	badJWTs []string
}

// The token answer's shape is the one Google documents for the
// service-account flow ("Using OAuth 2.0 for Server to Server
// Applications", developers.google.com/identity/protocols/oauth2/service-account).
const adcToken = "ya29.c.from-adc"

func newADC(t *testing.T) *adc {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	a := &adc{key: key}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.grants++
		if err := r.ParseForm(); err != nil || r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		if msg := a.checkAssertion(r.Form.Get("assertion"), "http://"+r.Host+r.URL.Path); msg != "" {
			a.badJWTs = append(a.badJWTs, msg)
			http.Error(w, `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"access_token":"` + adcToken + `","expires_in":3599,"token_type":"Bearer"}`))
	}))
	t.Cleanup(srv.Close)
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "my-proj", "private_key_id": "k1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": "helikon@my-proj.iam.gserviceaccount.com", "client_id": "1",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": srv.URL + "/token",
	})
	a.file = filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(a.file, sa, 0o600); err != nil {
		t.Fatal(err)
	}
	return a
}

// checkAssertion verifies the JWT the client signed with the file's key
// and its claims; it returns what is wrong, or "".
func (a *adc) checkAssertion(jwt, tokenURL string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "assertion is not a JWT"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "signature is not base64url"
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&a.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return "not signed with the key file's key"
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct{ Iss, Aud, Scope string }
	if json.Unmarshal(raw, &claims) != nil || claims.Iss != "helikon@my-proj.iam.gserviceaccount.com" || claims.Aud != tokenURL ||
		claims.Scope != "https://www.googleapis.com/auth/cloud-platform" {
		return "claims " + string(raw)
	}
	return ""
}

func (a *adc) counts() (grants int, bad []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.grants, a.badJWTs
}

func TestVertexFromEnv_UsesApplicationDefaultCredentials(t *testing.T) {
	a := newADC(t)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", a.file)
	t.Setenv("GOOGLE_CLOUD_PROJECT", "my-proj")
	t.Setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
	srv, c := serve(t, "testdata/text.sse")
	m, err := gemini.VertexFromEnv(t.Context(), "gemini-2.5-flash", gemini.WithBaseURL(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if res := providertest.Collect(m.Invoke(t.Context(), &helikon.ModelRequest{Messages: helikon.UserText("hi")})); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	grants, bad := a.counts()
	if got := bearers(c); len(got) != 2 || got[0] != "Bearer "+adcToken || got[1] != got[0] || grants != 1 || len(bad) != 0 {
		t.Errorf("Authorization %q after %d token grants (rejected: %v), want the ADC token on both requests from one grant", got, grants, bad)
	}
	if want := "/v1/projects/my-proj/locations/europe-west4/"; !strings.HasPrefix(c.urls[0], want) {
		t.Errorf("url = %s, want the project and location of the environment (%s…)", c.urls[0], want)
	}
}

// Only VertexFromEnv without a token source looks for credentials: with
// a service-account file named by GOOGLE_APPLICATION_CREDENTIALS, every
// other way of building a model ignores it, and the Developer API reads
// nothing but GEMINI_API_KEY and GOOGLE_API_KEY.
func TestCredentials_ApplicationDefaultCredentialsOnlyWhenAskedFor(t *testing.T) {
	a := newADC(t)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", a.file)
	t.Setenv("GOOGLE_CLOUD_PROJECT", "my-proj")
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	req := &helikon.ModelRequest{Messages: helikon.UserText("hi")}

	if _, err := gemini.New("gemini-2.5-flash"); !errors.Is(err, gemini.ErrNoAPIKey) {
		t.Errorf("New with no key: err = %v, want ErrNoAPIKey", err)
	}
	if _, err := gemini.Vertex("gemini-2.5-flash", "my-proj"); !errors.Is(err, gemini.ErrNoCredentials) {
		t.Errorf("Vertex with no token source: err = %v, want ErrNoCredentials", err)
	}
	srv, c := serve(t, "testdata/text.sse")
	dev, err := gemini.New("gemini-2.5-flash", gemini.WithBaseURL(srv.URL)) // a proxy that adds its own key
	if err != nil {
		t.Fatal(err)
	}
	if res := providertest.Collect(dev.Invoke(t.Context(), req)); res.Err != nil {
		t.Fatal(res.Err)
	}
	if h := c.headers[0]; h.Get("Authorization") != "" || h.Get("X-Goog-Api-Key") != "" {
		t.Errorf("Developer API request without a key carried credentials: %v", h)
	}
	own, err := gemini.VertexFromEnv(t.Context(), "gemini-2.5-flash", gemini.WithBaseURL(srv.URL), gemini.WithBearerToken("ya29.own"))
	if err != nil {
		t.Fatal(err)
	}
	if res := providertest.Collect(own.Invoke(t.Context(), req)); res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := c.headers[1].Get("Authorization"); got != "Bearer ya29.own" {
		t.Errorf("VertexFromEnv with a token: Authorization = %q, want the given token", got)
	}
	if grants, _ := a.counts(); grants != 0 {
		t.Errorf("%d requests reached the ADC token endpoint; none was asked for", grants)
	}

	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
	if _, err := gemini.VertexFromEnv(t.Context(), "gemini-2.5-flash"); err == nil || !strings.Contains(err.Error(), "Application Default Credentials") {
		t.Errorf("VertexFromEnv with a missing key file: err = %v, want an Application Default Credentials error", err)
	}
}
