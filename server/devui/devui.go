package devui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed assets
var assets embed.FS

// ErrConfig reports an option [New] refused.
var ErrConfig = errors.New("devui: invalid configuration")

// ContentSecurityPolicy is the policy every response of the UI carries:
// scripts and styles only from the UI's own files (no inline code), and
// requests only to the page's origin.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// DefaultAPI is where the UI finds the agent server's routes, relative to
// the UI's own address: the UI at /ui/ talks to the server at /.
const DefaultAPI = "../"

// UI serves the dev UI: a single page and its script, style and icon,
// embedded in the binary. It is an [http.Handler] for the UI's own root:
// mount it with [http.StripPrefix], as [New]'s example shows.
type UI struct {
	files map[string]*asset
}

// asset is one served file, with its gzip form when that is smaller.
type asset struct {
	body, gz    []byte
	contentType string
	etag        string
}

// Option configures a [UI].
type Option func(*config)

type config struct{ api string }

// WithAPI sets where the UI finds the agent server's routes: a URL, or a
// path relative to the UI's address (default [DefaultAPI]). It must end
// in a slash.
func WithAPI(base string) Option { return func(c *config) { c.api = base } }

// New builds the UI's handler, to mount under a prefix:
//
//	ui, err := devui.New()
//	mux.Handle("/ui/", http.StripPrefix("/ui", ui))
//	mux.Handle("/", srv.Handler()) // the agent server, which the UI calls at ../
func New(opts ...Option) (*UI, error) {
	c := config{api: DefaultAPI}
	for _, o := range opts {
		o(&c)
	}
	if c.api == "" || len(c.api) > 2048 || !strings.HasSuffix(c.api, "/") || strings.ContainsFunc(c.api, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, fmt.Errorf("%w: API base %q must be a URL or path ending in / without control characters", ErrConfig, c.api)
	}
	ui := &UI{files: make(map[string]*asset)}
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets")
		if name == "/index.html" {
			body = bytes.ReplaceAll(body, []byte("{{API}}"), []byte(html.EscapeString(c.api)))
		}
		a, err := newAsset(name, body)
		if err != nil {
			return err
		}
		ui.files[name] = a
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("devui: load assets: %w", err)
	}
	ui.files["/"] = ui.files["/index.html"]
	return ui, nil
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
}

func newAsset(name string, body []byte) (*asset, error) {
	ct, ok := contentTypes[path.Ext(name)]
	if !ok {
		return nil, fmt.Errorf("%s: no content type for its extension", name)
	}
	sum := sha256.Sum256(body)
	a := &asset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	if ct != "image/png" {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		if _, err := zw.Write(body); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		if buf.Len() < len(body) {
			a.gz = buf.Bytes()
		}
	}
	return a, nil
}

// ServeHTTP serves the page at / (and /index.html) and its files, with
// their content types, an ETag (If-None-Match answers 304), gzip when the
// client accepts it, and [ContentSecurityPolicy].
func (ui *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	if p == "" {
		p = "/"
	}
	a := ui.files[p]
	if a == nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	h.Set("Content-Type", a.contentType)
	h.Set("ETag", a.etag)
	// Revalidate every time: the ETag makes that a 304 once the
	// binary's assets are cached, and a new binary's are never stale.
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	if etagMatch(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = a.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// etagMatch reports whether an If-None-Match header names etag (weakly,
// as RFC 9110 has GET compare).
func etagMatch(header, etag string) bool {
	for t := range strings.SplitSeq(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}

// Size is what the UI's first load transfers: the page and every file
// it loads, gzip-compressed where the UI serves them so (bodies only,
// without headers).
func (ui *UI) Size() int {
	n := 0
	for name, a := range ui.files {
		if name == "/" {
			continue
		}
		if a.gz != nil {
			n += len(a.gz)
		} else {
			n += len(a.body)
		}
	}
	return n
}
