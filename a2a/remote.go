package a2a

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/slug"
)

// Errors a [RemoteAgent] fails with. A failed run's error is a
// [*helikon.AgentError] whose Err is a [*RemoteError] matching one of them.
var (
	// ErrInvalidCard reports an agent card that cannot be used: no name,
	// no usable URL, no JSON-RPC binding.
	ErrInvalidCard = errors.New("a2a: invalid agent card")
	// ErrTaskFailed reports a remote task that ended failed or rejected.
	ErrTaskFailed = errors.New("a2a: the remote task failed")
	// ErrTaskCanceled reports a remote task canceled on the remote side.
	ErrTaskCanceled = errors.New("a2a: the remote task was canceled")
	// ErrInputRequired reports a remote task that stopped to ask its caller
	// for input (an approval, a credential): a Helikon run cannot answer
	// on the remote's behalf, so the run ends; the task id in the
	// [RemoteError] lets a program continue it with the a2a-go client.
	ErrInputRequired = errors.New("a2a: the remote task requires input")
	// ErrTimeout reports a remote agent that did not finish within
	// [WithTimeout].
	ErrTimeout = errors.New("a2a: the remote agent timed out")
	// ErrProtocol reports a remote that broke the protocol: an event of
	// another task, a stream that ended without a final state, a reply
	// that cannot be decoded.
	ErrProtocol = errors.New("a2a: protocol error")
)

// RemoteError is a remote agent's failure, as a [RemoteAgent]'s run reports
// it. It matches the sentinel in Err with errors.Is.
type RemoteError struct {
	Agent  string
	TaskID string
	// State is the remote task's last state, when the remote told one.
	State string
	// Message is what the remote said, if anything.
	Message string
	Err     error
}

// Error describes the failure. The task id and the message, which the
// remote wrote, are quoted and cut, so that they cannot forge a log line.
func (e *RemoteError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Agent != "" {
		b.WriteString(" (agent " + e.Agent)
		if e.TaskID != "" {
			b.WriteString(", task " + quoteRemote(e.TaskID))
		}
		b.WriteString(")")
	}
	if e.Message != "" {
		b.WriteString(": " + quoteRemote(e.Message))
	}
	return b.String()
}

// Unwrap returns the sentinel or cause.
func (e *RemoteError) Unwrap() error { return e.Err }

// RemoteAgent is a remote A2A agent as a [helikon.Agent]: a handoff
// target, a workflow step, a graph node, or, through [RemoteAgent.AsTool],
// a tool. Each run sends the remote one message and streams its updates
// back: the remote's streamed text as [helikon.TokenDelta]s, its final
// output as the run's [helikon.MessageOutput]. Build it with
// [NewRemoteAgent]; it is safe for concurrent use.
//
// A run sends the remote the last user message of its input, preceded,
// when the input holds more (a handoff passes the whole transcript), by a
// text part that renders the earlier conversation, so the remote needs no
// memory of its own: each run is a new A2A context.
type RemoteAgent struct {
	name, description string
	card              *a2apb.AgentCard
	client            *rpcClient
	cfg               remoteConfig
}

// RemoteOption configures a [RemoteAgent].
type RemoteOption func(*remoteConfig) error

type remoteConfig struct {
	http        *http.Client
	name        string
	timeout     time.Duration
	maxResponse int64
	card        *a2apb.AgentCard
}

// WithHTTPClient sets the client every request goes through, for auth
// (a transport that adds credentials) and TLS. Its responses are bounded
// by [WithMaxResponseBytes] all the same, and it follows a redirect only
// within the origin (scheme, host and port) of the request redirected:
// one to another origin fails with [ErrCrossOriginRedirect], so that the
// credentials the client adds reach no host but the ones the caller and
// the card named. The client's CheckRedirect decides on the rest.
func WithHTTPClient(c *http.Client) RemoteOption {
	return func(cfg *remoteConfig) error {
		if c == nil {
			return fmt.Errorf("a2a: %w: nil HTTP client", ErrInvalidOption)
		}
		cfg.http = c
		return nil
	}
}

// WithName names the agent on this side (default: the card's name as a
// slug), the name handoffs and tools use.
func WithName(name string) RemoteOption {
	return func(cfg *remoteConfig) error {
		if name == "" {
			return fmt.Errorf("a2a: %w: empty name", ErrInvalidOption)
		}
		cfg.name = name
		return nil
	}
}

// WithTimeout bounds one run of the remote agent (default 5 minutes); a
// remote that streams forever ends the run with [ErrTimeout] and its task
// is canceled.
func WithTimeout(d time.Duration) RemoteOption {
	return func(cfg *remoteConfig) error {
		if d <= 0 {
			return fmt.Errorf("a2a: %w: timeout %v", ErrInvalidOption, d)
		}
		cfg.timeout = d
		return nil
	}
}

// WithMaxResponseBytes bounds each response the remote sends, a whole
// stream included (default 16 MiB): past it the run fails with
// [ErrResponseTooLarge], having held at most that much.
func WithMaxResponseBytes(n int64) RemoteOption {
	return func(cfg *remoteConfig) error {
		if n <= 0 {
			return fmt.Errorf("a2a: %w: max response bytes %d", ErrInvalidOption, n)
		}
		cfg.maxResponse = n
		return nil
	}
}

// WithCard uses card instead of reading it from the remote's well-known
// path.
func WithCard(card *a2apb.AgentCard) RemoteOption {
	return func(cfg *remoteConfig) error {
		if card == nil {
			return fmt.Errorf("a2a: %w: nil card", ErrInvalidOption)
		}
		cfg.card = card
		return nil
	}
}

// NewRemoteAgent reads the agent card at baseURL's well-known path
// ([CardPath]) and returns the agent it describes. A card that does not
// validate fails with [ErrInvalidCard]; a relative URL in the card is
// resolved against baseURL.
func NewRemoteAgent(ctx context.Context, baseURL string, opts ...RemoteOption) (*RemoteAgent, error) {
	cfg := remoteConfig{http: http.DefaultClient, timeout: 5 * time.Minute, maxResponse: 16 << 20}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("a2a: %w: base URL %q is not an http(s) URL", ErrInvalidOption, baseURL)
	}
	hc := boundedClient(sameOriginClient(cfg.http), cfg.maxResponse)
	card := cfg.card
	if card == nil {
		card, err = agentcard.NewResolver(hc).Resolve(ctx, baseURL)
		if err != nil {
			return nil, fmt.Errorf("a2a: reading the agent card of %s: %w", baseURL, err)
		}
	}
	card, err = checkCard(card, base)
	if err != nil {
		return nil, err
	}
	endpoint, err := jsonRPCEndpoint(card)
	if err != nil {
		return nil, err
	}
	client := &rpcClient{url: endpoint, http: hc, maxEvent: int(min(cfg.maxResponse, 1<<30))}
	name := cfg.name
	if name == "" {
		name = slug.Make(card.Name)
	}
	return &RemoteAgent{name: name, description: card.Description, card: card, client: client, cfg: cfg}, nil
}

// checkCard validates a card and returns a copy whose URLs are absolute.
func checkCard(card *a2apb.AgentCard, base *url.URL) (*a2apb.AgentCard, error) {
	if strings.TrimSpace(card.Name) == "" || slug.Make(card.Name) == "" {
		return nil, fmt.Errorf("%w: no name", ErrInvalidCard)
	}
	c := *card
	abs := func(raw string) (string, error) {
		u, err := url.Parse(raw)
		if err != nil {
			return "", fmt.Errorf("%w: URL %q: %w", ErrInvalidCard, raw, err)
		}
		u = base.ResolveReference(u)
		if u.Scheme != "http" && u.Scheme != "https" {
			return "", fmt.Errorf("%w: URL %q is not http(s)", ErrInvalidCard, raw)
		}
		return u.String(), nil
	}
	if c.URL == "" {
		return nil, fmt.Errorf("%w: no URL", ErrInvalidCard)
	}
	var err error
	if c.URL, err = abs(c.URL); err != nil {
		return nil, err
	}
	c.AdditionalInterfaces = append([]a2apb.AgentInterface(nil), card.AdditionalInterfaces...)
	for i := range c.AdditionalInterfaces {
		if c.AdditionalInterfaces[i].URL, err = abs(c.AdditionalInterfaces[i].URL); err != nil {
			return nil, err
		}
	}
	if c.PreferredTransport == "" {
		c.PreferredTransport = a2apb.TransportProtocolJSONRPC
	}
	return &c, nil
}

// jsonRPCEndpoint returns the URL of the card's first JSON-RPC interface,
// the preferred one first, then the additional ones in the card's order.
func jsonRPCEndpoint(card *a2apb.AgentCard) (string, error) {
	if card.PreferredTransport == a2apb.TransportProtocolJSONRPC {
		return card.URL, nil
	}
	for _, i := range card.AdditionalInterfaces {
		if i.Transport == a2apb.TransportProtocolJSONRPC {
			return i.URL, nil
		}
	}
	return "", fmt.Errorf("%w: no JSON-RPC interface (the card offers %s)", ErrInvalidCard, card.PreferredTransport)
}

// Name returns the agent's name on this side.
func (r *RemoteAgent) Name() string { return r.name }

// Description returns the card's description.
func (r *RemoteAgent) Description() string { return r.description }

// Card returns the remote's agent card, its URLs made absolute.
func (r *RemoteAgent) Card() *a2apb.AgentCard { return r.card }

// AsTool returns the remote agent as a tool: its runs' events reach the
// calling run as [helikon.SubRunEvent]s.
func (r *RemoteAgent) AsTool(opts ...helikon.AgentToolOption) (*helikon.AgentTool, error) {
	return helikon.AgentAsTool(r, opts...)
}

// Run sends the remote one message and streams back what it says.
func (r *RemoteAgent) Run(ctx context.Context, _ *helikon.RunContext, input []helikon.Item) iter.Seq[helikon.Event] {
	return func(yield func(helikon.Event) bool) {
		if !yield(helikon.RunStarted{At: time.Now().UTC(), Agent: r.name}) {
			return
		}
		msg, err := messageFrom(input)
		if err != nil {
			yield(helikon.RunFailed{At: time.Now().UTC(), Err: r.agentError(ctx, err)})
			return
		}
		runCtx, cancel := context.WithTimeoutCause(ctx, r.cfg.timeout, ErrTimeout)
		defer cancel()
		rs := &remoteRun{agent: r, yield: yield}
		params := &a2apb.MessageSendParams{Message: msg}
		if r.card.Capabilities.Streaming {
			for ev, err := range r.client.stream(runCtx, params) {
				if err != nil {
					rs.fail(runCtx, err)
					return
				}
				if done, ok := rs.on(ev); done || !ok {
					if !ok {
						r.cancelTask(ctx, rs.taskID)
					}
					return
				}
			}
			rs.fail(runCtx, &RemoteError{Agent: r.name, TaskID: rs.taskID, State: rs.state,
				Message: "the stream ended before the task finished", Err: ErrProtocol})
			return
		}
		ev, err := r.client.send(runCtx, params)
		if err != nil {
			rs.fail(runCtx, err)
			return
		}
		if done, _ := rs.on(ev); !done {
			rs.fail(runCtx, &RemoteError{Agent: r.name, TaskID: rs.taskID, State: rs.state,
				Message: "the reply is not a finished task or a message", Err: ErrProtocol})
		}
	}
}

// cancelTask asks the remote to cancel a task this side stopped following,
// on a context of its own: the run's may be what ended.
func (r *RemoteAgent) cancelTask(ctx context.Context, id string) {
	if id == "" {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = r.client.cancel(cctx, id)
}

func (r *RemoteAgent) agentError(ctx context.Context, err error) *helikon.AgentError {
	kind := helikon.KindOther
	if ctx.Err() != nil && !errors.Is(err, ErrTimeout) {
		kind = helikon.KindCancelled
	}
	return &helikon.AgentError{Kind: kind, Agent: r.name, Message: err.Error(), Err: err}
}

// remoteRun follows one run's updates.
type remoteRun struct {
	agent    *RemoteAgent
	yield    func(helikon.Event) bool
	taskID   string
	state    string
	streamed strings.Builder // text of artifacts other than the output one
	output   []a2apb.Part    // the output artifact's parts
}

// on handles one update. done reports the run ended (the final events
// yielded); ok false reports the consumer stopped.
func (rs *remoteRun) on(ev a2apb.Event) (done, ok bool) {
	switch ev := ev.(type) {
	case *a2apb.Message:
		return true, rs.finish(ev.Parts)
	case *a2apb.Task:
		rs.taskID, rs.state = string(ev.ID), string(ev.Status.State)
		// Only a settled task's artifacts count: a live stream delivers
		// each as an update too (and a2a-go may encode a task it is still
		// appending to).
		if ev.Status.State.Terminal() || ev.Status.State == a2apb.TaskStateInputRequired || ev.Status.State == a2apb.TaskStateAuthRequired {
			for _, a := range ev.Artifacts {
				rs.artifact(a, false)
			}
			return rs.end(ev.Status)
		}
	case *a2apb.TaskArtifactUpdateEvent:
		if rs.taskID != "" && string(ev.TaskID) != rs.taskID {
			return rs.protocol("an update of another task")
		}
		rs.taskID = string(ev.TaskID)
		if !rs.artifact(ev.Artifact, true) {
			return false, false
		}
	case *a2apb.TaskStatusUpdateEvent:
		if rs.taskID != "" && string(ev.TaskID) != rs.taskID {
			return rs.protocol("an update of another task")
		}
		rs.taskID, rs.state = string(ev.TaskID), string(ev.Status.State)
		if ev.Final || ev.Status.State.Terminal() || ev.Status.State == a2apb.TaskStateInputRequired || ev.Status.State == a2apb.TaskStateAuthRequired {
			return rs.end(ev.Status)
		}
	case nil:
		return rs.protocol("an empty reply")
	}
	return false, true
}

// artifact takes an artifact's parts: the output artifact's are kept for
// the end; any other's text streams as deltas when live.
func (rs *remoteRun) artifact(a *a2apb.Artifact, live bool) bool {
	if a == nil {
		return true
	}
	if a.Name == OutputArtifact {
		rs.output = append(rs.output, a.Parts...)
		return true
	}
	for _, p := range a.Parts {
		tp, ok := p.(a2apb.TextPart)
		if !ok {
			rs.output = append(rs.output, p)
			continue
		}
		rs.streamed.WriteString(tp.Text)
		if live && !rs.yield(helikon.TokenDelta{Text: tp.Text}) {
			return false
		}
	}
	return true
}

func (rs *remoteRun) end(st a2apb.TaskStatus) (bool, bool) {
	var sentinel error
	switch st.State {
	case a2apb.TaskStateCompleted:
		parts := rs.output
		if len(parts) == 0 && rs.streamed.Len() > 0 {
			parts = []a2apb.Part{a2apb.TextPart{Text: rs.streamed.String()}}
		}
		if len(parts) == 0 && st.Message != nil {
			parts = st.Message.Parts
		}
		return true, rs.finish(parts)
	case a2apb.TaskStateCanceled:
		sentinel = ErrTaskCanceled
	case a2apb.TaskStateInputRequired, a2apb.TaskStateAuthRequired:
		sentinel = ErrInputRequired
	default:
		sentinel = ErrTaskFailed
	}
	rs.yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: rs.agent.name,
		Err: &RemoteError{Agent: rs.agent.name, TaskID: rs.taskID, State: string(st.State), Message: textOf(st.Message), Err: sentinel}}})
	return true, true
}

func (rs *remoteRun) protocol(what string) (bool, bool) {
	rs.yield(helikon.RunFailed{At: time.Now().UTC(), Err: &helikon.AgentError{Kind: helikon.KindOther, Agent: rs.agent.name,
		Err: &RemoteError{Agent: rs.agent.name, TaskID: rs.taskID, State: rs.state, Message: what, Err: ErrProtocol}}})
	return true, true
}

// finish ends the run with parts as its final output: text as it is, a
// data part as JSON marked structured.
func (rs *remoteRun) finish(parts []a2apb.Part) bool {
	var text strings.Builder
	structured := false
	for _, p := range parts {
		switch p := p.(type) {
		case a2apb.TextPart:
			text.WriteString(p.Text)
		case a2apb.DataPart:
			raw, err := json.Marshal(p.Data)
			if err == nil {
				text.Write(raw)
				structured = true
			}
		}
	}
	item := helikon.Item{Role: helikon.RoleAssistant, Agent: rs.agent.name,
		Content: []helikon.ContentPart{helikon.TextPart{Text: text.String()}}}
	if !rs.yield(helikon.MessageOutput{At: time.Now().UTC(), Item: item}) {
		return false
	}
	return rs.yield(helikon.RunCompleted{At: time.Now().UTC(), Agent: rs.agent.name, Structured: structured})
}

// fail ends the run with a transport-level error, typed by its cause.
func (rs *remoteRun) fail(ctx context.Context, err error) {
	var re *RemoteError
	if !errors.As(err, &re) {
		switch {
		case errors.Is(context.Cause(ctx), ErrTimeout):
			err = &RemoteError{Agent: rs.agent.name, TaskID: rs.taskID, State: rs.state, Message: err.Error(), Err: ErrTimeout}
		case errors.Is(err, ErrResponseTooLarge), errors.Is(err, bufio.ErrTooLong):
			err = &RemoteError{Agent: rs.agent.name, TaskID: rs.taskID, State: rs.state, Message: err.Error(), Err: ErrResponseTooLarge}
		case errors.Is(err, ErrCrossOriginRedirect):
			err = &RemoteError{Agent: rs.agent.name, TaskID: rs.taskID, State: rs.state, Message: err.Error(), Err: ErrCrossOriginRedirect}
		}
	}
	rs.agent.cancelTask(ctx, rs.taskID)
	rs.yield(helikon.RunFailed{At: time.Now().UTC(), Err: rs.agent.agentError(ctx, err)})
}

func textOf(m *a2apb.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if tp, ok := p.(a2apb.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// messageFrom renders a run's input as one A2A user message: the last user
// item's parts, after a text part with the conversation before it.
func messageFrom(input []helikon.Item) (*a2apb.Message, error) {
	last := -1
	for i := len(input) - 1; i >= 0; i-- {
		if input[i].Role == helikon.RoleUser {
			last = i
			break
		}
	}
	if last < 0 {
		return nil, errors.New("a2a: the input holds no user message to send")
	}
	var parts []a2apb.Part
	var before strings.Builder
	for _, it := range input[:last] {
		if t := it.Text(); t != "" {
			fmt.Fprintf(&before, "%s: %s\n", it.Role, t)
		}
	}
	for _, it := range input[last+1:] {
		if t := it.Text(); t != "" {
			fmt.Fprintf(&before, "%s: %s\n", it.Role, t)
		}
	}
	if before.Len() > 0 {
		parts = append(parts, a2apb.TextPart{Text: "Conversation so far:\n" + before.String()})
	}
	for _, p := range input[last].Content {
		switch p := p.(type) {
		case helikon.TextPart:
			parts = append(parts, a2apb.TextPart{Text: p.Text})
		case helikon.ImagePart:
			meta := a2apb.FileMeta{MimeType: p.MediaType}
			if p.URL != "" {
				parts = append(parts, a2apb.FilePart{File: a2apb.FileURI{FileMeta: meta, URI: p.URL}})
			} else {
				parts = append(parts, a2apb.FilePart{File: a2apb.FileBytes{FileMeta: meta, Bytes: base64.StdEncoding.EncodeToString(p.Data)}})
			}
		}
	}
	if len(parts) == 0 {
		return nil, errors.New("a2a: the user message is empty")
	}
	return a2apb.NewMessage(a2apb.MessageRoleUser, parts...), nil
}
