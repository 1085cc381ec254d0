// Package compaction keeps a long conversation within a model's context: a
// [Session] wraps any [helikon.Session] and, once the projected history
// counts more than a token threshold, asks a model to summarise it and
// appends a [session.Compacted] marker, which projects to the summary
// (and, with [WithKeepRecentTurns], the newest turns verbatim) in place of
// what it summarises. The log itself keeps every event.
//
//	s, err := compaction.New(helikon.NewMemorySession(), model, 8000)
//	if err != nil {
//		return err
//	}
//	rc := helikon.NewRunContext(helikon.WithSession(s))
package compaction
