// Package retry makes any [helikon.Model] resilient: [Model] retries
// transient provider failures with exponential backoff and full jitter,
// honouring a rate limit's retry-after, and a shared [Limiter] keeps every
// agent of a process under the provider's requests- and tokens-per-minute
// limits.
//
// The agent loop never retries on its own; wrapping the model is the one
// place retries are configured, so every runner (in-process, server,
// Temporal) gets the same behaviour:
//
//	limiter, _ := retry.NewLimiter(500, 200_000) // requests, tokens per minute
//	model, err := retry.New(openai.Chat("gpt-5-mini"),
//		retry.WithMaxAttempts(4), retry.WithBaseDelay(250*time.Millisecond),
//		retry.WithLimiter(limiter))
//	agent, _ := helikon.NewAgent("assistant", model)
package retry
