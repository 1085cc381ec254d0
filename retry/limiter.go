package retry

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/paigasus/helikon"
)

// Limiter is a client-side rate limit on requests and tokens per minute,
// shared by every [Model] built [WithLimiter] it: it keeps a fleet of
// agents under a provider account's limits instead of discovering them
// through 429s. It is safe for concurrent use.
//
// Each attempt waits for one request and for an estimate of its input
// tokens (a quarter of the request's text length). Once the attempt has
// reported its usage, tokens beyond the estimate (the output, mostly) are
// charged as debt that later requests wait off. Both buckets start full,
// allowing a minute's worth in a burst.
type Limiter struct {
	requests *rate.Limiter
	tokens   *rate.Limiter
}

// NewLimiter returns a Limiter allowing requestsPerMinute requests and
// tokensPerMinute tokens (input plus output); zero leaves that dimension
// unlimited.
func NewLimiter(requestsPerMinute, tokensPerMinute int) (*Limiter, error) {
	if requestsPerMinute < 0 || tokensPerMinute < 0 {
		return nil, fmt.Errorf("retry: limiter rates must not be negative (requests %d, tokens %d per minute)", requestsPerMinute, tokensPerMinute)
	}
	l := &Limiter{}
	if requestsPerMinute > 0 {
		l.requests = rate.NewLimiter(perMinute(requestsPerMinute), requestsPerMinute)
	}
	if tokensPerMinute > 0 {
		l.tokens = rate.NewLimiter(perMinute(tokensPerMinute), tokensPerMinute)
	}
	return l, nil
}

func perMinute(n int) rate.Limit { return rate.Limit(float64(n) / 60) }

// wait blocks until the attempt may go and returns the tokens it reserved.
func (l *Limiter) wait(ctx context.Context, req *helikon.ModelRequest, provider string) (int, error) {
	if l.requests != nil {
		if err := l.requests.Wait(ctx); err != nil {
			return 0, waitError(ctx, provider, err)
		}
	}
	if l.tokens == nil {
		return 0, nil
	}
	n := min(estimateTokens(req), l.tokens.Burst())
	if err := l.tokens.WaitN(ctx, n); err != nil {
		return 0, waitError(ctx, provider, err)
	}
	return n, nil
}

// settle charges the tokens an attempt used beyond what it reserved.
func (l *Limiter) settle(reserved int, used helikon.Usage) {
	if l.tokens == nil {
		return
	}
	now := time.Now()
	// A reservation may not exceed the burst, but reservations add up: the
	// debt can reach beyond a minute's worth.
	for extra := int(used.Total()) - reserved; extra > 0; extra -= l.tokens.Burst() {
		l.tokens.ReserveN(now, min(extra, l.tokens.Burst()))
	}
}

// waitError reports a wait that ended early: the context's error when it
// was cancelled, a RateLimited model error when the wait would outlast the
// context's deadline.
func waitError(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &helikon.ModelError{Kind: helikon.ModelRateLimited, Provider: provider,
		Message: "client-side rate limit: " + err.Error()}
}

// estimateTokens guesses a request's input tokens from its text, at four
// bytes a token.
func estimateTokens(req *helikon.ModelRequest) int {
	n := 0
	for _, it := range req.Messages {
		n += partsLen(it.Content)
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description)
	}
	return max(n/4, 1)
}

func partsLen(parts []helikon.ContentPart) int {
	n := 0
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			n += len(p.Text)
		case helikon.ReasoningPart:
			n += len(p.Text)
		case helikon.ToolUsePart:
			n += len(p.Name) + len(p.Args)
		case helikon.ToolResultPart:
			n += partsLen(p.Content)
		}
	}
	return n
}
