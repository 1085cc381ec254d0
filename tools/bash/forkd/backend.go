package forkd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paigasus/helikon/tools/bash"
)

// maxResponse caps a controller response body.
const maxResponse = 16 << 20

// DefaultReapAge is how old a VM of this snapshot must be before
// [Backend.Reconcile] reaps it.
const DefaultReapAge = 5 * time.Minute

// Backend is the forkd client. It is safe for concurrent use.
type Backend struct {
	base     *url.URL
	token    string
	snapshot string
	http     *http.Client
	reapAge  time.Duration
	proxy    string
	timeout  time.Duration
	now      func() time.Time
}

// Option configures [New].
type Option func(*Backend)

// WithBearerToken sets the controller's bearer token.
func WithBearerToken(t string) Option { return func(b *Backend) { b.token = t } }

// WithSnapshot sets the snapshot tag VMs are forked from (required).
func WithSnapshot(tag string) Option { return func(b *Backend) { b.snapshot = tag } }

// WithHTTPClient replaces the HTTP client (default: 60 s timeout).
func WithHTTPClient(h *http.Client) Option { return func(b *Backend) { b.http = h } }

// WithReapAge sets the age past which Reconcile reaps a VM (default
// [DefaultReapAge]); keep it above the longest run plus clock skew.
func WithReapAge(d time.Duration) Option { return func(b *Backend) { b.reapAge = d } }

// WithTimeout sets the default per-command timeout (default
// [bash.DefaultTimeout]).
func WithTimeout(d time.Duration) Option { return func(b *Backend) { b.timeout = d } }

// WithEgressProxy attests that the deployment routes all guest egress
// through the policy proxy at hostport, raising the network guarantee to
// Proxied. New probes the proxy and fails when it does not answer.
func WithEgressProxy(hostport string) Option { return func(b *Backend) { b.proxy = hostport } }

// New returns a Backend for the controller at controllerURL. It fails
// without a snapshot tag, and, with [WithEgressProxy], when the proxy
// cannot be reached.
func New(ctx context.Context, controllerURL string, opts ...Option) (*Backend, error) {
	u, err := url.Parse(controllerURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("forkd: controller URL %q: want http(s)://host", controllerURL)
	}
	b := &Backend{base: u, http: &http.Client{Timeout: 60 * time.Second}, reapAge: DefaultReapAge, timeout: bash.DefaultTimeout, now: time.Now}
	for _, o := range opts {
		o(b)
	}
	if b.snapshot == "" {
		return nil, errors.New("forkd: no snapshot tag (WithSnapshot)")
	}
	if b.reapAge <= 0 || b.timeout <= 0 || b.http == nil {
		return nil, errors.New("forkd: reap age and timeout must be positive, HTTP client set")
	}
	if b.proxy != "" {
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", b.proxy)
		if err != nil {
			return nil, fmt.Errorf("forkd: egress proxy %s does not answer, refusing to claim Proxied: %w", b.proxy, err)
		}
		c.Close()
	}
	return b, nil
}

// Guarantees reports Virtualized files and syscalls, and a network that
// is Proxied only with an attested egress proxy.
func (b *Backend) Guarantees() bash.Guarantees {
	g := bash.Guarantees{Filesystem: bash.Virtualized, Syscalls: bash.Virtualized, Label: "forkd (firecracker microvm — experimental)"}
	if b.proxy != "" {
		g.Network = bash.Proxied
	}
	return g
}

type sandbox struct {
	ID        string `json:"id"`
	Snapshot  string `json:"snapshot"`
	CreatedAt string `json:"created_at"`
}

// Run forks a VM, runs the command in it and destroys it, also when the
// command fails or ctx ends.
func (b *Backend) Run(ctx context.Context, req bash.Request) (bash.Result, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = b.timeout
	}
	var sb sandbox
	if err := b.do(ctx, http.MethodPost, "/v1/sandboxes", map[string]string{"snapshot": b.snapshot}, http.StatusCreated, &sb); err != nil {
		return bash.Result{}, fmt.Errorf("forkd: fork: %w", err)
	}
	if sb.ID == "" {
		return bash.Result{}, errors.New("forkd: fork: the controller returned no id")
	}
	defer func() {
		// The VM goes even when ctx is done; a bounded context of its own.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = b.destroy(dctx, sb.ID)
	}()
	var res bash.Result
	ectx, cancel := context.WithTimeout(ctx, timeout+10*time.Second)
	defer cancel()
	body := map[string]any{"command": req.Command, "timeout_ms": timeout.Milliseconds()}
	if err := b.do(ectx, http.MethodPost, "/v1/sandboxes/"+url.PathEscape(sb.ID)+"/exec", body, http.StatusOK, &res); err != nil {
		if ctx.Err() != nil {
			return bash.Result{}, ctx.Err()
		}
		return bash.Result{}, fmt.Errorf("forkd: exec: %w", err)
	}
	res.Stdout = bash.Elide(res.Stdout, req.OutputLimit)
	res.Stderr = bash.Elide(res.Stderr, req.OutputLimit)
	return res, nil
}

func (b *Backend) destroy(ctx context.Context, id string) error {
	err := b.do(ctx, http.MethodDelete, "/v1/sandboxes/"+url.PathEscape(id), nil, http.StatusNoContent, nil)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil
	}
	return err
}

// ReconcileReport is what [Backend.Reconcile] did.
type ReconcileReport struct {
	// Scanned counts the VMs of this backend's snapshot.
	Scanned int
	// Reaped lists the ids destroyed.
	Reaped []string
	// Failed maps ids whose destruction failed to why.
	Failed map[string]error
	// SkippedUnageable counts VMs without a readable created_at.
	SkippedUnageable int
}

// Reconcile lists the controller's VMs and destroys those of this
// backend's snapshot older than the reap age: the leaks of forks whose id
// the client never learned. It keys on age alone, so several processes
// sharing a controller can each run it.
func (b *Backend) Reconcile(ctx context.Context) (ReconcileReport, error) {
	var list struct {
		Sandboxes []sandbox `json:"sandboxes"`
	}
	if err := b.do(ctx, http.MethodGet, "/v1/sandboxes", nil, http.StatusOK, &list); err != nil {
		return ReconcileReport{}, fmt.Errorf("forkd: list: %w", err)
	}
	rep := ReconcileReport{Failed: map[string]error{}}
	now := b.now()
	for _, s := range list.Sandboxes {
		if s.Snapshot != b.snapshot {
			continue
		}
		rep.Scanned++
		t, err := time.Parse(time.RFC3339Nano, s.CreatedAt)
		if err != nil {
			rep.SkippedUnageable++
			continue
		}
		if now.Sub(t) <= b.reapAge {
			continue
		}
		if err := b.destroy(ctx, s.ID); err != nil {
			rep.Failed[s.ID] = err
			continue
		}
		rep.Reaped = append(rep.Reaped, s.ID)
	}
	return rep, nil
}

type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return fmt.Sprintf("status %d: %.200s", e.code, e.body) }

// do sends one request and decodes a bounded JSON answer into out.
func (b *Backend) do(ctx context.Context, method, path string, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	u := b.base.JoinPath(path)
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if b.token != "" {
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return err
	}
	if len(raw) > maxResponse {
		return fmt.Errorf("response past %d bytes", maxResponse)
	}
	if resp.StatusCode != want {
		return &statusError{code: resp.StatusCode, body: strings.TrimSpace(string(raw))}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}
