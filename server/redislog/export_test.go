package redislog

import "time"

// WithCallTimeout lowers the log's bound on one call to Redis, for tests
// that would otherwise wait it out.
func WithCallTimeout(d time.Duration) Option { return func(l *Log) { l.callTimeout = d } }
