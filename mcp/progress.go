package mcp

import (
	"context"
	"fmt"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/paigasus/helikon"
)

// progress reports a run's turns and tool calls to a client that asked for
// progress with a token. The zero progress (no token) does nothing.
type progress struct {
	session *sdk.ServerSession
	token   any
	n       float64
	logger  *slog.Logger
}

func newProgress(req *sdk.CallToolRequest, logger *slog.Logger) *progress {
	p := &progress{session: req.Session, logger: logger}
	if req.Params != nil {
		p.token = req.Params.GetProgressToken()
	}
	return p
}

// see notifies the client of ev when it marks progress. A failed
// notification is logged and does not fail the run: progress is advisory.
func (p *progress) see(ctx context.Context, ev helikon.Event) {
	if p.token == nil || p.session == nil {
		return
	}
	var msg string
	switch e := ev.(type) {
	case helikon.TurnStarted:
		msg = fmt.Sprintf("turn %d", e.Turn)
	case helikon.ToolCallItem:
		for _, u := range e.Item.ToolUses() {
			msg = "calling tool " + u.Name
		}
	default:
		return
	}
	p.n++
	if err := p.session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: msg}); err != nil {
		p.logger.Debug("mcp: progress notification failed", "error", err)
	}
}
