// Package session builds the records of a session log: the
// [helikon.SessionEvent]s a runner appends to a [helikon.Session] as a run
// goes ([UserMessage], [AssistantMessage], [ToolCalled], [ToolReturned],
// [HandoffOccurred], [Compacted]) and the human-in-the-loop records beside
// them ([PauseRecorded], [ResumeClaimed], [PermissionGranted]). Each
// constructor stamps the event's Time.
//
// The log's types and its projection to messages ([helikon.Project]) are
// in the core; the backends are its subpackages (sqlite, postgres, redis),
// with the conformance suite every backend passes (sessiontest), the
// projection cache (sessioncache) and compaction (compaction). See
// docs/sessions.md.
package session
