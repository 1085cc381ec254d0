package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paigasus/helikon"
)

func callFetch(t *testing.T, f *Fetch, u string) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(FetchArgs{URL: u})
	out, err := f.Call(helikon.NewToolContext(t.Context(), nil, "c1", "WebFetch"), raw)
	if err != nil {
		return "", err
	}
	var s string
	if err := json.Unmarshal(out.Content, &s); err != nil {
		t.Fatal(err)
	}
	return s, nil
}

func kindOf(err error) helikon.ToolErrorKind {
	var te *helikon.ToolError
	if errors.As(err, &te) {
		return te.Kind
	}
	return ""
}

// staticResolver answers every lookup with addrs.
type staticResolver []netip.Addr

func (r staticResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

func TestFetch_TheSSRFGuardRefusesEveryPrivateSpelling(t *testing.T) {
	f, err := NewFetch(WithResolver(staticResolver{netip.MustParseAddr("10.1.2.3")}))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{
		"http://127.0.0.1/", "http://127.9.9.9:8080/", "http://[::1]/", "http://localhost.localdomain/",
		"http://10.0.0.1/", "http://172.16.5.4/", "http://192.168.1.1/",
		"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://[fe80::1]/",
		"http://100.64.0.1/", "http://[fc00::1]/",
		"http://0.0.0.0/", "http://[::]/", "http://224.0.0.1/", "http://[ff02::1]/", "http://255.255.255.255/",
		"http://[::ffff:127.0.0.1]/", "http://[::ffff:169.254.169.254]/", "http://[::ffff:a00:1]/", "http://[::127.0.0.1]/",
		"http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::]/", "http://[::ffff:0:7f00:1]/",
		// Fullwidth digits and dots: IDNA maps them to 127.0.0.1.
		"http://１２７．０．０．１/", "http://127。0。0。1/",
		"http://2130706433/", "http://0x7f000001/", "http://0x7f.1/", "http://0177.0.0.1/", "http://017700000001/", "http://127.1/",
		"http://metadata.internal/", // resolves to 10.1.2.3
	} {
		_, err := callFetch(t, f, u)
		if kindOf(err) != helikon.ToolDenied {
			t.Errorf("%s: err = %v, want Denied", u, err)
		}
	}
}

func TestFetch_SchemesCredentialsAndHostLists(t *testing.T) {
	f, err := NewFetch(WithAllowHosts("example.com"), WithDenyHosts("secret.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		url  string
		kind helikon.ToolErrorKind
	}{
		{"file:///etc/passwd", helikon.ToolDenied},
		{"gopher://example.com/", helikon.ToolDenied},
		{"http://user:pw@example.com/", helikon.ToolDenied},
		{"https://user@example.com/", helikon.ToolDenied},
		{"https://:pw@example.com/", helikon.ToolDenied},
		{"data:text/plain,hello", helikon.ToolDenied},
		{"data:text/html;base64,PGgxPmhpPC9oMT4=", helikon.ToolDenied},
		{"ftp://example.com/f", helikon.ToolDenied},
		{"javascript:alert(1)", helikon.ToolDenied},
		{"https://example.com/a\x00b", helikon.ToolInvalidArgs},
		{"https://example.com/" + strings.Repeat("a", MaxURLBytes), helikon.ToolInvalidArgs},
		{"http://other.org/", helikon.ToolDenied},
		{"https://secret.example.com/x", helikon.ToolDenied},
		{"https://a.secret.example.com/x", helikon.ToolDenied},
		{"not a url", helikon.ToolInvalidArgs},
		{"/relative", helikon.ToolInvalidArgs},
	} {
		if _, err := callFetch(t, f, c.url); kindOf(err) != c.kind {
			t.Errorf("%s: err = %v, want %s", c.url, err, c.kind)
		}
	}
}

func TestFetch_NonHTTPSchemesAreDeniedByTheSchemeCheck(t *testing.T) {
	// No host lists and no guard: only the scheme check stands between
	// these URLs and a request.
	f, err := NewFetch(WithoutSSRFGuard())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"file:///etc/passwd", "file://localhost/etc/passwd", "gopher://example.com:70/_GET", "data:text/plain,hello",
		"data:text/html;base64,PGgxPmhpPC9oMT4=", "ftp://example.com/f", "javascript:alert(1)", "ws://example.com/"} {
		_, err := callFetch(t, f, u)
		var te *helikon.ToolError
		if !errors.As(err, &te) || te.Kind != helikon.ToolDenied || !strings.Contains(te.Reason, "scheme") {
			t.Errorf("%s: err = %v, want Denied for its scheme", u, err)
		}
	}
}

// rebinder answers a public address to the first lookup and loopback to
// every later one: the DNS rebinding attack.
type rebinder struct {
	mu    sync.Mutex
	calls int
}

func (r *rebinder) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func TestFetch_DNSRebindingIsCaughtAtDialTime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "internal admin page")
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	r := &rebinder{}
	f, err := NewFetch(WithResolver(r))
	if err != nil {
		t.Fatal(err)
	}
	out, err := callFetch(t, f, fmt.Sprintf("http://rebind.test:%d/", port))
	if kindOf(err) != helikon.ToolDenied || !errors.Is(err, ErrSSRF) || strings.Contains(out, "admin") {
		t.Fatalf("out %q, err %v: want a Denied SSRF error", out, err)
	}
	if r.calls != 2 {
		t.Errorf("resolver called %d times, want 2 (precheck, then dial)", r.calls)
	}
	if hits.Load() != 0 {
		t.Errorf("the internal server got %d requests", hits.Load())
	}
}

const articleHTML = `<!doctype html><html><head><title>Tides of Helikon</title><script>alert("x")</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Tides of Helikon</h1>
<p>The tides of Helikon rise twice a day, pulled by the twin moons that circle the planet in opposite directions. Sailors time their voyages to the lulls between them.</p>
<p>In the long season the tides grow higher still, and the harbour towns raise their sea walls with stone quarried from the northern cliffs, a practice older than any written record.</p>
<p>Read more in <a href="https://example.com/moons">the moons guide</a>.</p>
</article><footer>© 2026 Cookie banner, share buttons</footer></body></html>`

func TestFetch_ReturnsTheArticleAsMarkdown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/article", http.StatusFound)
		case "/article":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, articleHTML)
		case "/plain":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("abcdefghij", 1000))
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	f, err := NewFetch(WithoutSSRFGuard(), WithMaxBytes(5000))
	if err != nil {
		t.Fatal(err)
	}
	out, err := callFetch(t, f, srv.URL+"/moved")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"URL: " + srv.URL + "/article", "# Tides of Helikon", "twin moons", "[the moons guide](https://example.com/moons)"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	for _, junk := range []string{"alert", "<p>", "Cookie banner"} {
		if strings.Contains(out, junk) {
			t.Errorf("markdown keeps %q:\n%s", junk, out)
		}
	}
	out, err = callFetch(t, f, srv.URL+"/plain")
	if err != nil || !strings.HasSuffix(out, "[the page was cut at 5000 bytes]") || len(out) > 5200 {
		t.Errorf("plain: %d bytes, %v", len(out), err)
	}
	for _, p := range []string{"/image", "/missing"} {
		if _, err := callFetch(t, f, srv.URL+p); kindOf(err) != helikon.ToolFailed {
			t.Errorf("%s: err = %v, want Failed", p, err)
		}
	}
}

func TestFetch_RedirectsAreRecheckedAndBounded(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-denied":
			http.Redirect(w, r, "http://denied.test/", http.StatusFound)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default: // a loop
			http.Redirect(w, r, srv.URL+"/loop", http.StatusFound)
		}
	}))
	defer srv.Close()
	f, err := NewFetch(WithoutSSRFGuard(), WithDenyHosts("denied.test"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		kind helikon.ToolErrorKind
	}{{"/to-denied", helikon.ToolDenied}, {"/to-file", helikon.ToolDenied}, {"/loop", helikon.ToolFailed}} {
		if _, err := callFetch(t, f, srv.URL+c.path); kindOf(err) != c.kind {
			t.Errorf("%s: err = %v, want %s", c.path, err, c.kind)
		}
	}
}

func TestFetch_TheGuardIsOnByDefaultForLoopbackServers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hi") }))
	defer srv.Close()
	f, err := NewFetch()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callFetch(t, f, srv.URL); kindOf(err) != helikon.ToolDenied {
		t.Fatalf("err = %v, want Denied", err)
	}
	if helikon.EffectOf(f) != helikon.SideEffect {
		t.Error("WebFetch is not SideEffect")
	}
}

func TestNewFetch_RejectsBadOptions(t *testing.T) {
	for _, o := range []FetchOption{WithMaxBytes(0), WithFetchTimeout(-1), WithResolver(nil)} {
		if _, err := NewFetch(o); err == nil {
			t.Error("no error")
		}
	}
}

// net/http dials a host in the ASCII form IDNA's lookup mapping gives it:
// fullwidth letters fold to ASCII, a soft hyphen is dropped, U+3002 is a
// dot. The host lists judged the host as written, so "ｌｏｃａｌｈｏｓｔ"
// and "local\u00adhost" reached a server WithDenyHosts("localhost")
// refused. The lists (and the guard) now judge, and the request dials,
// the ASCII form.
func TestFetch_HostListsJudgeTheNameTheTransportDials(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "private")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	f, err := NewFetch(WithoutSSRFGuard(), WithDenyHosts("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"localhost", "LOCALHOST", "localhost.", "ｌｏｃａｌｈｏｓｔ", "local\u00adhost", "ＬＯＣＡＬhost", "localhost。"} {
		_, err := callFetch(t, f, "http://"+host+":"+port+"/")
		if kindOf(err) != helikon.ToolDenied {
			t.Errorf("%q: err = %v, want Denied", host, err)
		}
	}
	// A redirect to such a spelling is judged the same way.
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://ｌｏｃａｌｈｏｓｔ:"+port+"/", http.StatusFound)
	}))
	defer redirector.Close()
	if _, err := callFetch(t, f, redirector.URL); kindOf(err) != helikon.ToolDenied {
		t.Errorf("redirect to a fullwidth localhost: err = %v, want Denied", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the denied server was reached %d times", n)
	}
	// An internationalized name outside the lists is fetched by its
	// ASCII form.
	g, err := NewFetch(WithoutSSRFGuard(), WithAllowHosts("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := callFetch(t, g, "http://ｌｏｃａｌｈｏｓｔ:"+port+"/"); err != nil || !strings.Contains(out, "URL: http://localhost:"+port) {
		t.Errorf("allowed by its ASCII form: %q, %v", out, err)
	}
}
