package helikon

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// Price is what one model charges per million tokens (USD by convention).
// A zero CachedInput or CacheWrite price means the Input price, so prompt
// caching is never free by accident.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// Prices maps model ids (as [ModelInfo] reports them) to their [Price]; on
// a run ([WithPrices]) every turn carries its cost in [Usage].Cost.
type Prices map[string]Price

// Cost prices usage u of model (see [Usage] for what InputTokens counts;
// reasoning tokens are part of OutputTokens). ok is false when the table
// has no price for model.
func (p Prices) Cost(model string, u Usage) (cost float64, ok bool) {
	pr, ok := p[model]
	if !ok {
		return 0, false
	}
	cached, write := cmp.Or(pr.CachedInput, pr.Input), cmp.Or(pr.CacheWrite, pr.Input)
	plain := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	cost = float64(plain)*pr.Input + float64(u.CachedInputTokens)*cached +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*pr.Output
	return cost / 1e6, true
}

// WithPrices installs a price table on the run; handoffs and sub-agents
// share it.
func WithPrices(p Prices) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().prices = p })
}

// Budget caps what one run may spend over every turn of every agent it
// involves. A zero field is no limit. MaxCost needs a price table
// ([WithPrices]); turns of models the table does not price cost nothing.
type Budget struct {
	// MaxTokens bounds input plus output tokens.
	MaxTokens int64
	// MaxCost bounds the summed [Usage].Cost.
	MaxCost float64
}

// WithBudget sets the run's budget. The turn that crosses it fails the run
// with [ErrBudgetExceeded]; a run whose budget is spent fails before
// calling the model again.
func WithBudget(b Budget) ContextOption {
	return contextOptionFunc(func(rc *RunContext) { rc.setting().budget = b })
}

func (b Budget) set() bool { return b.MaxTokens > 0 || b.MaxCost > 0 }

// budgetMeter counts the spend of one top-level run; every nested run
// shares it through the RunContext.
type budgetMeter struct {
	limit Budget
	mu    sync.Mutex
	used  Usage
}

// add records a turn's usage and reports the budget error when the run has
// now crossed its limit.
func (m *budgetMeter) add(agent string, u Usage) error {
	m.mu.Lock()
	m.used = m.used.Add(u)
	used := m.used
	m.mu.Unlock()
	return m.limit.crossed(agent, used, false)
}

// spent reports the budget error when nothing is left for another turn.
func (m *budgetMeter) spent(agent string) error {
	m.mu.Lock()
	used := m.used
	m.mu.Unlock()
	return m.limit.crossed(agent, used, true)
}

func (b Budget) crossed(agent string, used Usage, orEqual bool) error {
	over := func(used, limit float64) bool {
		return limit > 0 && (used > limit || orEqual && used == limit)
	}
	switch {
	case over(float64(used.Total()), float64(b.MaxTokens)):
		return &AgentError{Kind: KindBudgetExceeded, Agent: agent,
			Message: fmt.Sprintf("token budget of %d spent (%d used)", b.MaxTokens, used.Total())}
	case over(used.Cost, b.MaxCost):
		return &AgentError{Kind: KindBudgetExceeded, Agent: agent,
			Message: fmt.Sprintf("cost budget of %g spent (%g used)", b.MaxCost, used.Cost)}
	}
	return nil
}

// usageSink collects the usage of the sub-agent runs a run starts (an agent
// used as a tool), which a run's context carries to the runs nested in it;
// handoff targets report through their RunCompleted instead.
type usageSink struct {
	// used lets a run no sub-agent reported to skip the lock.
	used  atomic.Bool
	mu    sync.Mutex
	total Usage
}

func (s *usageSink) add(u Usage) {
	s.mu.Lock()
	s.total = s.total.Add(u)
	s.mu.Unlock()
	s.used.Store(true)
}

func (s *usageSink) sum() Usage {
	if !s.used.Load() {
		return Usage{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

type sinkKey struct{}

// sinkContext carries a run's sink under sinkKey; drivers embed one rather
// than call context.WithValue, which would allocate on every run.
type sinkContext struct {
	context.Context
	sink *usageSink
}

func (c *sinkContext) Value(key any) any {
	if _, ok := key.(sinkKey); ok {
		return c.sink
	}
	return c.Context.Value(key)
}
