package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/paigasus/helikon"
	"golang.org/x/net/idna"
)

// The WebFetch defaults.
const (
	// DefaultFetchMaxBytes caps the body WebFetch reads.
	DefaultFetchMaxBytes = 2 << 20
	// DefaultFetchTimeout bounds one fetch, redirects included.
	DefaultFetchTimeout = 30 * time.Second
	// maxRedirects bounds the redirects one fetch follows.
	maxRedirects = 5
	// MaxURLBytes bounds the URL a call may give, checked before it is
	// parsed.
	MaxURLBytes = 8 << 10
)

// ErrSSRF marks a fetch the SSRF guard refused.
var ErrSSRF = errors.New("web: address refused by the SSRF guard")

// Resolver looks up a host's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// FetchArgs are the arguments of the WebFetch tool.
type FetchArgs struct {
	URL string `json:"url" jsonschema:"the http or https URL to fetch"`
}

// Fetch is the WebFetch tool: an HTTP(S) GET whose page is reduced to its
// main article (a port of Mozilla's Readability) and returned as Markdown.
// Bodies are capped in size and time, redirects are re-checked, hosts
// can be allowed or denied, and the SSRF guard refuses private, loopback,
// link-local, CGNAT, ULA, multicast and unspecified addresses, in every
// spelling, both before the request and again at dial time so a DNS
// answer that changes between the two (rebinding) cannot slip through.
// Its effect is SideEffect.
type Fetch struct {
	inner    helikon.Tool
	client   *http.Client
	resolver Resolver
	guard    bool
	allow    []string
	deny     []string
	maxBytes int64
	timeout  time.Duration
}

// FetchOption configures [NewFetch].
type FetchOption func(*Fetch)

// WithAllowHosts admits only these hosts and their subdomains.
func WithAllowHosts(hosts ...string) FetchOption {
	return func(f *Fetch) { f.allow = append(f.allow, hosts...) }
}

// WithDenyHosts refuses these hosts and their subdomains.
func WithDenyHosts(hosts ...string) FetchOption {
	return func(f *Fetch) { f.deny = append(f.deny, hosts...) }
}

// WithMaxBytes caps the body read (default [DefaultFetchMaxBytes]).
func WithMaxBytes(n int64) FetchOption { return func(f *Fetch) { f.maxBytes = n } }

// WithFetchTimeout bounds a fetch (default [DefaultFetchTimeout]).
func WithFetchTimeout(d time.Duration) FetchOption { return func(f *Fetch) { f.timeout = d } }

// WithResolver replaces the DNS resolver (default net.DefaultResolver).
func WithResolver(r Resolver) FetchOption { return func(f *Fetch) { f.resolver = r } }

// WithoutSSRFGuard turns the SSRF guard off, for a fetcher that must reach
// private addresses (a test server on loopback, an intranet). The host
// lists still apply.
func WithoutSSRFGuard() FetchOption { return func(f *Fetch) { f.guard = false } }

// NewFetch returns the WebFetch tool.
func NewFetch(opts ...FetchOption) (*Fetch, error) {
	f := &Fetch{resolver: net.DefaultResolver, guard: true, maxBytes: DefaultFetchMaxBytes, timeout: DefaultFetchTimeout}
	for _, o := range opts {
		o(f)
	}
	if f.maxBytes <= 0 || f.timeout <= 0 || f.resolver == nil {
		return nil, fmt.Errorf("web: NewFetch: max bytes %d and timeout %v must be positive, resolver set", f.maxBytes, f.timeout)
	}
	tr := &http.Transport{
		// No proxy from the environment: a proxy would dial for us, out
		// of the guard's sight.
		Proxy:                 nil,
		DialContext:           f.dial,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: f.timeout,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
	}
	f.client = &http.Client{Transport: tr, Timeout: f.timeout, CheckRedirect: f.checkRedirect}
	inner, err := helikon.NewTool("WebFetch",
		"Fetch an http(s) URL and return its main content as Markdown.", f.call)
	if err != nil {
		return nil, err
	}
	f.inner = inner
	return f, nil
}

// Name returns "WebFetch".
func (f *Fetch) Name() string { return f.inner.Name() }

// Description returns the text the model reads.
func (f *Fetch) Description() string { return f.inner.Description() }

// InputSchema returns the schema of [FetchArgs].
func (f *Fetch) InputSchema() *jsonschema.Schema { return f.inner.InputSchema() }

// Call fetches the URL.
func (f *Fetch) Call(tc *helikon.ToolContext, args json.RawMessage) (helikon.ToolOutput, error) {
	return f.inner.Call(tc, args)
}

// Effect returns SideEffect: a GET reaches the outside world.
func (f *Fetch) Effect() helikon.ToolEffect { return helikon.SideEffect }

// checkURL applies the scheme, host list and SSRF checks that need no DNS,
// to the host in the form the request dials: an internationalized one is
// rewritten in u to its ASCII form first (see asciiHost).
func (f *Fetch) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: only http and https are fetched", u.Scheme)
	}
	if u.User != nil {
		return errors.New("URLs with credentials are not fetched")
	}
	if err := asciiHost(u); err != nil {
		return err
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, d := range f.deny {
		if hostMatches(host, d) {
			return fmt.Errorf("host %s is denied", host)
		}
	}
	if f.allow != nil && !anyMatch(host, f.allow) {
		return fmt.Errorf("host %s is not in the allow list", host)
	}
	if !f.guard {
		return nil
	}
	if err := checkHostSpelling(host); err != nil {
		return fmt.Errorf("%w: %v", ErrSSRF, err)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if err := checkAddr(a); err != nil {
			return fmt.Errorf("%w: %v", ErrSSRF, err)
		}
	}
	return nil
}

// asciiHost rewrites the host of u, when it is not ASCII, to the ASCII
// form IDNA's lookup mapping gives it, which net/http would otherwise
// dial in its place: fullwidth letters and digits fold to ASCII, a soft
// hyphen is dropped, U+3002 reads as a dot ("ｌｏｃａｌ\u00adｈｏｓｔ" is
// localhost). The host lists and the guard then judge the name that is
// dialled, and the request carries it, so no mapping table of another
// version can differ. A name IDNA refuses is an error.
func asciiHost(u *url.URL) error {
	h := u.Hostname()
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return nil
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return fmt.Errorf("host %q is not a name IDNA can map to ASCII: %w", h, err)
	}
	if p := u.Port(); p != "" {
		u.Host = net.JoinHostPort(a, p)
	} else {
		u.Host = a
	}
	return nil
}

func anyMatch(host string, list []string) bool {
	for _, h := range list {
		if hostMatches(host, h) {
			return true
		}
	}
	return false
}

func hostMatches(host, pattern string) bool {
	pattern = strings.ToLower(strings.TrimSuffix(pattern, "."))
	return host == pattern || strings.HasSuffix(host, "."+pattern)
}

// errRedirectRefused marks a redirect to a URL checkURL refuses, so that
// the call is Denied, as the same URL given directly is.
var errRedirectRefused = errors.New("redirect refused")

func (f *Fetch) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if err := f.checkURL(req.URL); err != nil {
		return fmt.Errorf("%w: %w", errRedirectRefused, err)
	}
	return nil
}

// dial resolves the host itself and dials the addresses with a Control
// hook that checks each one as the socket connects: the address the
// kernel is about to reach is the one judged.
func (f *Fetch) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{a}
	} else if ips, err = f.resolver.LookupNetIP(ctx, "ip", host); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 10 * time.Second, Control: f.control}
	var first error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("no address for %s", host)
	}
	return nil, first
}

func (f *Fetch) control(_, address string, _ syscall.RawConn) error {
	if !f.guard {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot judge %q", ErrSSRF, address)
	}
	if err := checkAddr(ap.Addr()); err != nil {
		return fmt.Errorf("%w: %v", ErrSSRF, err)
	}
	return nil
}

// precheck resolves a named host and refuses it when any answer is not
// public, so the model gets a clear denial before a request is made.
func (f *Fetch) precheck(ctx context.Context, u *url.URL) error {
	if !f.guard {
		return nil
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	ips, err := f.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, ip := range ips {
		if err := checkAddr(ip); err != nil {
			return fmt.Errorf("%w: %s resolves to %v", ErrSSRF, host, err)
		}
	}
	return nil
}

func (f *Fetch) call(tc *helikon.ToolContext, in FetchArgs) (string, error) {
	const tool = "WebFetch"
	if len(in.URL) > MaxURLBytes {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{fmt.Sprintf("url: %d bytes, at most %d", len(in.URL), MaxURLBytes)}}
	}
	u, err := url.Parse(in.URL)
	if err != nil || u.Scheme == "" {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{fmt.Sprintf("url: %q is not an absolute URL", in.URL)}}
	}
	if err := f.checkURL(u); err != nil {
		return "", &helikon.ToolError{Kind: helikon.ToolDenied, Tool: tool, Reason: err.Error(), Err: err}
	}
	if u.Host == "" {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{fmt.Sprintf("url: %q has no host", in.URL)}}
	}
	ctx, cancel := context.WithTimeout(tc, f.timeout)
	defer cancel()
	if err := f.precheck(ctx, u); err != nil {
		return "", f.toolError(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", &helikon.ToolError{Kind: helikon.ToolInvalidArgs, Tool: tool, SchemaErrors: []string{err.Error()}}
	}
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5")
	req.Header.Set("User-Agent", "helikon-webfetch/1")
	resp, err := f.client.Do(req)
	if err != nil {
		if tc.Err() != nil {
			return "", tc.Err()
		}
		return "", f.toolError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: fmt.Errorf("GET %s: %s", resp.Request.URL, resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return "", f.toolError(err)
	}
	truncated := int64(len(body)) > f.maxBytes
	if truncated {
		body = body[:f.maxBytes]
	}
	text, err := toMarkdown(resp, body)
	if err != nil {
		return "", &helikon.ToolError{Kind: helikon.ToolFailed, Tool: tool, Err: err}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n\n%s", resp.Request.URL, text)
	if truncated {
		fmt.Fprintf(&b, "\n\n[the page was cut at %d bytes]", f.maxBytes)
	}
	return b.String(), nil
}

func (f *Fetch) toolError(err error) error {
	if errors.Is(err, ErrSSRF) || errors.Is(err, errRedirectRefused) {
		return &helikon.ToolError{Kind: helikon.ToolDenied, Tool: "WebFetch", Reason: err.Error(), Err: err}
	}
	return &helikon.ToolError{Kind: helikon.ToolFailed, Tool: "WebFetch", Err: err}
}

// toMarkdown reduces an HTML page to its article as Markdown, and passes
// text through.
func toMarkdown(resp *http.Response, body []byte) (string, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/html" || ct == "application/xhtml+xml" || (ct == "" && bytes.Contains(bytes.ToLower(body[:min(len(body), 512)]), []byte("<html"))):
		article, err := readability.FromReader(bytes.NewReader(body), resp.Request.URL)
		if err != nil || article.Node == nil {
			md, cerr := htmltomarkdown.ConvertString(string(body))
			if cerr != nil {
				return "", fmt.Errorf("convert HTML: %w", cerr)
			}
			return md, nil
		}
		md, err := htmltomarkdown.ConvertNode(article.Node)
		if err != nil {
			return "", fmt.Errorf("convert HTML: %w", err)
		}
		if t := article.Title(); t != "" {
			return "# " + t + "\n\n" + string(md), nil
		}
		return string(md), nil
	case strings.HasPrefix(ct, "text/") || ct == "application/json" || strings.HasSuffix(ct, "+json") || ct == "application/xml":
		return string(body), nil
	}
	return "", fmt.Errorf("content type %q is not text", ct)
}
