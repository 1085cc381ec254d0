// Package sessioncache keeps sessions' projections in a warm process, so
// that a run on a long session reads only what was appended since the
// process last saw it instead of the whole log.
//
// A [Cache] is shared by everything in a process that runs agents on
// sessions: the default runner, the agent server, a durable worker. Wrap
// each session with the key that names its log, and use the wrapper as the
// run's session:
//
//	cache, _ := sessioncache.New()
//	s, _ := sqlite.OpenWithoutMigrate(db, id)
//	rc := helikon.NewRunContext(helikon.WithSession(cache.Wrap("sqlite:"+id, s)))
//	res, err := runner.New().Run(ctx, agent, rc, helikon.UserText("hi"))
//
// The wrapper's Snapshot returns the cached projection after folding in
// the events the log gained since (Events after the last position the
// cache holds), so appends by another process or another handle are seen,
// in order, once. Append and Events go to the wrapped session.
//
// # Limits and memory
//
// The cache holds at most [WithMaxSessions] sessions and about
// [WithMaxBytes] of projected messages, and forgets a session unused for
// [WithIdleTimeout]; the least recently used go first. A session's cost is
// its projected messages: about 150 bytes per message plus its text and
// tool arguments (the estimate [Stats] reports), so a 1,000-run chat of
// short turns costs a few hundred KiB. A session bigger than the whole
// budget is not kept.
//
// # Invalidation
//
// A session log is append-only, and the cache relies on it: it reads the
// events after the position it holds and checks that they continue it
// (the next position, no gap). A gap (events trimmed by a capped Redis
// stream, for one) or a failed incremental read drops the entry and loads
// the log whole. What the cache cannot see is a log that was deleted and
// written anew under the same key with at least as many events: call
// [Cache.Invalidate] when a log is deleted.
package sessioncache
