package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"sync"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/limiter"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/jsondepth"
	"github.com/paigasus/helikon/runner"
)

// CardPath is where a [Server] serves its agent card, relative to where it
// is mounted: the path the A2A specification names.
const CardPath = a2asrv.WellKnownAgentCardPath

// Server serves one [helikon.Agent] over A2A's JSON-RPC binding. It is an
// [http.Handler]: the agent card at [CardPath] (GET) and JSON-RPC requests
// at any other path (POST). Build it with [NewServer]; it is safe for
// concurrent use. [Server.Close] cancels the runs in flight and waits for
// them.
type Server struct {
	agent   helikon.Agent
	cfg     serverConfig
	card    *a2apb.AgentCard
	rpc     http.Handler
	cardH   http.Handler
	runner  *runner.Runner
	tasks   *taskStore
	ctx     context.Context // cancelled by Close; every run derives from it
	stop    context.CancelFunc
	running sync.WaitGroup

	mu      sync.Mutex
	cancels map[a2apb.TaskID]context.CancelFunc
}

// NewServer returns a [Server] for agent. It fails on a nil agent or an
// invalid option.
func NewServer(agent helikon.Agent, opts ...ServerOption) (*Server, error) {
	if agent == nil {
		return nil, fmt.Errorf("a2a: %w: agent is nil", ErrInvalidOption)
	}
	cfg := defaultServerConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	s := &Server{agent: agent, cfg: cfg, runner: runner.New(runner.WithLogger(cfg.logger)),
		tasks: newTaskStore(cfg.maxTasks, cfg.maxTaskBytes), cancels: make(map[a2apb.TaskID]context.CancelFunc)}
	s.ctx, s.stop = context.WithCancel(context.Background())
	s.card = cardFor(agent, cfg)
	s.cardH = a2asrv.NewStaticAgentCardHandler(s.card)
	perPrincipal := cfg.maxRunsPerPrincipal
	h := a2asrv.NewHandler(&executor{s: s},
		a2asrv.WithTaskStore(s.tasks),
		// The SDK counts a run from its message until its execution ends,
		// per scope: the principal, which ServeHTTP puts on the context.
		a2asrv.WithConcurrencyConfig(limiter.ConcurrencyConfig{MaxExecutions: cfg.maxRuns,
			GetMaxExecutions: func(string) int { return perPrincipal }}),
		a2asrv.WithLogger(cfg.logger))
	s.rpc = a2asrv.NewJSONRPCHandler(ownedHandler{RequestHandler: h, tasks: s.tasks})
	return s, nil
}

// Card returns the agent card the server publishes.
func (s *Server) Card() *a2apb.AgentCard { return s.card }

// Close cancels every run in flight and waits for them to end.
func (s *Server) Close() error {
	s.stop()
	s.running.Wait()
	return nil
}

// ServeHTTP serves the card and the JSON-RPC binding. A request body is
// bounded in size ([WithMaxRequestBytes]) and JSON nesting before the SDK
// parses it; a caller the authenticator refuses gets 401.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, CardPath) {
		s.cardH.ServeHTTP(w, r)
		return
	}
	principal, err := s.cfg.authenticate(r)
	if err != nil {
		s.cfg.logger.Info("a2a: request refused", "path", r.URL.Path, "err", err)
		w.Header().Set("WWW-Authenticate", "Bearer")
		http.Error(w, "unauthenticated", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost {
		s.rpc.ServeHTTP(w, r) // the SDK answers with a JSON-RPC error
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeRPCError(w, -32600, "content type must be application/json")
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.maxRequest))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRPCError(w, -32600, fmt.Sprintf("request body larger than %d bytes", s.cfg.maxRequest))
			return
		}
		writeRPCError(w, -32700, "reading the request body: "+err.Error())
		return
	}
	if err := jsondepth.Check(body, maxRequestDepth); err != nil {
		writeRPCError(w, -32700, err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // already read whole; no second copy
	ctx := withPrincipal(r.Context(), principal)
	if principal != "" {
		// The anonymous principal is every caller: only the server's
		// bound applies to it.
		ctx = limiter.WithScope(ctx, principal)
	}
	r = r.WithContext(ctx)
	s.rpc.ServeHTTP(w, r)
}

// maxRequestDepth bounds the JSON nesting of a request: A2A messages are a
// few levels deep; data parts carry the caller's JSON, which gets room.
const maxRequestDepth = 64

// writeRPCError answers a request the SDK never saw with a JSON-RPC error.
// The message is JSON-encoded: Go's %q spells some bytes (\x7f) in a way
// JSON does not read.
func writeRPCError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	quoted, _ := json.Marshal(msg) // a string always marshals
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%s}}`, code, quoted)
}

// track registers a run's cancel under its task, so tasks/cancel and Close
// reach it. It reports false when the server is closing.
func (s *Server) track(id a2apb.TaskID, cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	s.cancels[id] = cancel
	s.running.Add(1)
	return true
}

func (s *Server) untrack(id a2apb.TaskID) {
	s.mu.Lock()
	delete(s.cancels, id)
	s.mu.Unlock()
	s.running.Done()
}

// cancelRun cancels the run of task id, if one is in flight, and reports
// whether it was.
func (s *Server) cancelRun(id a2apb.TaskID) bool {
	s.mu.Lock()
	cancel, ok := s.cancels[id]
	s.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// sessionFor returns the session of an A2A context, scoped to principal:
// two callers naming the same context id get two sessions. The principal's
// length leads its part of the id, so no pair of principal and context id
// can spell another's.
func (s *Server) sessionFor(ctx context.Context, principal, contextID string) (helikon.Session, error) {
	return s.cfg.sessions.Session(ctx, fmt.Sprintf("a2a/%d:%s/%s", len(principal), principal, contextID))
}

func (s *Server) logger() *slog.Logger { return s.cfg.logger }
