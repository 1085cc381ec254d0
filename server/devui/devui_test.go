package devui_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/paigasus/helikon/server/devui"
)

func newUI(t *testing.T, opts ...devui.Option) *httptest.Server {
	t.Helper()
	ui, err := devui.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.StripPrefix("/ui", ui))
	t.Cleanup(ts.Close)
	return ts
}

func fetch(t *testing.T, method, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	// The transport would otherwise ask for gzip and decode it itself.
	if req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func TestUI_ServesEachAssetWithItsContentTypeAndStrictHeaders(t *testing.T) {
	ts := newUI(t)
	tests := []struct {
		path, contentType, contains string
	}{
		{"/ui/", "text/html; charset=utf-8", `<script src="app.js" defer></script>`},
		{"/ui/index.html", "text/html; charset=utf-8", `<meta name="helikon-api" content="../">`},
		{"/ui/app.js", "text/javascript; charset=utf-8", `"use strict"`},
		{"/ui/style.css", "text/css; charset=utf-8", ":root"},
		{"/ui/favicon.svg", "image/svg+xml", "<svg"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := fetch(t, "GET", ts.URL+tt.path)
			h := resp.Header
			if resp.StatusCode != 200 || h.Get("Content-Type") != tt.contentType || !strings.Contains(string(body), tt.contains) {
				t.Fatalf("%d %q, body contains %q: %v", resp.StatusCode, h.Get("Content-Type"), tt.contains, strings.Contains(string(body), tt.contains))
			}
			if h.Get("Content-Security-Policy") != devui.ContentSecurityPolicy || h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers %v", h)
			}
			if h.Get("ETag") == "" || h.Get("Cache-Control") != "no-cache" || h.Get("Content-Encoding") != "" {
				t.Errorf("caching headers %v", h)
			}
		})
	}
}

func TestUI_AnswersNotModifiedForItsETagAndGzipWhenAccepted(t *testing.T) {
	ts := newUI(t)
	resp, plain := fetch(t, "GET", ts.URL+"/ui/app.js")
	etag := resp.Header.Get("ETag")
	for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		resp, body := fetch(t, "GET", ts.URL+"/ui/app.js", "If-None-Match", inm)
		if resp.StatusCode != http.StatusNotModified || len(body) != 0 || resp.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: %d, %d bytes", inm, resp.StatusCode, len(body))
		}
	}
	if resp, _ := fetch(t, "GET", ts.URL+"/ui/app.js", "If-None-Match", `"stale"`); resp.StatusCode != 200 {
		t.Errorf("stale ETag: %d", resp.StatusCode)
	}
	resp, gz := fetch(t, "GET", ts.URL+"/ui/app.js", "Accept-Encoding", "br, gzip;q=0.8")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" || len(gz) >= len(plain) {
		t.Fatalf("gzip: %v, %d bytes of %d", resp.Header, len(gz), len(plain))
	}
	zr, err := gzip.NewReader(strings.NewReader(string(gz)))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(zr); string(got) != string(plain) {
		t.Error("gzip body does not decode to the plain one")
	}
	if resp, _ := fetch(t, "GET", ts.URL+"/ui/app.js", "Accept-Encoding", "gzip;q=0"); resp.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 got gzip")
	}
	if resp, body := fetch(t, "HEAD", ts.URL+"/ui/app.js"); resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(len(plain)) {
		t.Errorf("HEAD: %d, %d bytes, length %d", resp.StatusCode, len(body), resp.ContentLength)
	}
}

func TestUI_RefusesUnknownPathsAndMethods(t *testing.T) {
	ts := newUI(t)
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/ui/nope.js", 404},
		{"GET", "/ui/assets/app.js", 404},
		{"GET", "/ui/../go.mod", 404},
		{"POST", "/ui/", 405},
		{"DELETE", "/ui/app.js", 405},
	} {
		if resp, _ := fetch(t, tt.method, ts.URL+tt.path); resp.StatusCode != tt.status {
			t.Errorf("%s %s: %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
		}
	}
}

func TestNew_EscapesTheAPIBaseAndRefusesBadOnes(t *testing.T) {
	ts := newUI(t, devui.WithAPI(`/api/"v1"<x>/`))
	_, body := fetch(t, "GET", ts.URL+"/ui/")
	if !strings.Contains(string(body), `content="/api/&#34;v1&#34;&lt;x&gt;/"`) {
		t.Errorf("API base not escaped: %s", body)
	}
	for _, bad := range []string{"", "/api", "/a\nb/", strings.Repeat("a", 3000) + "/"} {
		if _, err := devui.New(devui.WithAPI(bad)); err == nil {
			t.Errorf("WithAPI(%q) accepted", bad)
		}
	}
}

// The page must run under its own policy: no inline script or style, no
// HTML built from strings in the script.
func TestAssets_HaveNoInlineCodeAndNeverParseHTML(t *testing.T) {
	ts := newUI(t)
	_, page := fetch(t, "GET", ts.URL+"/ui/")
	if m := regexp.MustCompile(`<script[^>]*>[^<]+</script>|<style|\sstyle=|\son[a-z]+=|javascript:`).FindString(string(page)); m != "" {
		t.Errorf("index.html has inline code: %s", m)
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(string(page), -1) {
		if !strings.Contains(tag, ` src="`) {
			t.Errorf("index.html has an inline script: %s", tag)
		}
	}
	// Every script the page loads, each view's file as well as app.js.
	scripts := regexp.MustCompile(`<script src="([^"]+)"`).FindAllStringSubmatch(string(page), -1)
	if len(scripts) < 3 {
		t.Fatalf("index.html loads %d scripts", len(scripts))
	}
	for _, m := range scripts {
		_, js := fetch(t, "GET", ts.URL+"/ui/"+m[1])
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser"} {
			if strings.Contains(string(js), sink) {
				t.Errorf("%s uses %s", m[1], sink)
			}
		}
	}
}

func TestSize_IsTheFirstLoadUnder150KB(t *testing.T) {
	ui, err := devui.New()
	if err != nil {
		t.Fatal(err)
	}
	if n := ui.Size(); n <= 0 || n > 150_000 {
		t.Fatalf("first load is %d bytes", n)
	}
	// Size counts every embedded file; the page must load nothing else.
	ts := newUI(t)
	_, page := fetch(t, "GET", ts.URL+"/ui/")
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"#]+)"`).FindAllStringSubmatch(string(page), -1) {
		if resp, _ := fetch(t, "GET", ts.URL+"/ui/"+m[1]); resp.StatusCode != http.StatusOK {
			t.Errorf("index.html loads %s, which the UI does not serve (%d)", m[1], resp.StatusCode)
		}
	}
	t.Logf("first load: %d bytes (gzip)", ui.Size())
}
