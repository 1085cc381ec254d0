// Package redis stores [helikon.Session] logs in Redis, through
// go-redis/v9: the low-latency shared store.
//
// Each session is a Redis list at helikon:session:{id}:events, an item
// per event, oldest first. An item is "<seq> <payload>": the event's
// sequence id in decimal, a space, and the event's JSON, its kind and time
// included. The braces make the id a Redis Cluster hash tag, so a
// session's keys live in one slot. The package shares its name with
// go-redis, so import it under another name:
//
//	import (
//		"github.com/redis/go-redis/v9"
//		rsession "github.com/paigasus/helikon/session/redis"
//	)
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	defer client.Close()
//	session, err := rsession.New(client, "user-42")
//
// TLS, authentication, retries and cluster topology are the client's
// business: configure them on the client (Options.TLSConfig, a
// ClusterClient, …) and pass it in.
//
// # Sessions stored as streams
//
// Versions before lists stored each session as a Redis Stream at the same
// key, an entry per event under the ID "<seq>-1", beside a counter at
// helikon:session:{id}:seq. Such a session stays a stream: this version
// reads it (entries of every earlier form: payload alone, with seq, or
// with kind and ts too) and appends to it in place, so no migration is
// needed. A list is the faster layout to read: an LRANGE of 1,000 items
// took the server 41–45 µs against 181–183 µs for an XRANGE of the same
// payloads, and its reply is one bulk string an event instead of three, so
// a cold load of 1,000 runs (4,000 events) took 3.3–5.0 ms from a list
// against 4.8–7.2 ms from a stream, in the same minutes (docs/sessions.md).
// Appends cost the same.
//
// A process of an earlier version cannot read a list. It fails on one
// rather than split the session: its reads get WRONGTYPE, and its append
// script refuses before writing anything, because the counter it checks
// for is not there ([ErrSequenceLost]). So during a rolling upgrade from
// such a version, open sessions [WithStreamLayout] (and [WithSeqField],
// for versions that read that field), so that sessions created meanwhile
// are streams the old processes read too; drop the options once none is
// left. Existing sessions keep their layout either way, until
// [Session.ConvertToList] turns one into a list, atomically, under the
// same sequence ids (streams of up to [MaxConvertEvents] events).
//
// # Atomic appends
//
// An append is one Lua script, which Redis runs atomically, in the layout
// the key already has. On a list it takes the next sequence id from the
// last item's (LINDEX -1), RPUSHes the batch and, with [WithMaxLen],
// LTRIMs the front. On a stream it reserves the batch's ids with INCRBY on
// the counter and XADDs each event. Concurrent writers can therefore never
// share or skip a sequence id, and ids stay unique and monotonic when the
// log is trimmed.
//
// # Reads
//
// Events and loads read in pages of 1,000 events, so one command never
// holds the server for a whole long log, into a reused buffer as raw RESP,
// and decode each payload straight from it (go-redis's parsed XRANGE reply
// costs about fifteen allocations an entry). A stream is read by sequence
// id (XRANGE). A list is read by position (LRANGE), and a trim moves every
// position, so each page checks where it landed by the sequence ids its
// items carry: a page after the first starts at the last item already read,
// which must come back first, and a page that lands elsewhere is asked for
// again where its items say the log now starts. A read that knows where
// the session's list began (from its last read) asks for the events after
// a position in one command, an incremental load of a warm session
// included.
//
// go-redis neither retries a raw command nor follows a cluster's
// redirection for it, so a page is retried once on a broken connection,
// and read through go-redis's parsed reply on MOVED, ASK, TRYAGAIN or
// CLUSTERDOWN. Appends never leave a hole, so the pages of a read join
// up; only a trim ([WithMaxLen]) by another handle between two pages can
// break that: the read then starts over (twice at most, then fails with
// [ErrTrimmedDuringRead]) instead of returning events with a hole in them.
//
// # Retention
//
// By default a log grows without bound. [WithMaxLen] trims each session's
// log to its newest n events on every append. The trade-off: trimmed
// events are gone from Events and Snapshot, so a snapshot may begin
// mid-conversation, even with a tool result whose call was trimmed, which
// some providers reject; an old compaction summary can be trimmed too.
// Choose n well above the compaction window of a
// [github.com/paigasus/helikon/session/compaction.Session] wrapping the session, or keep the default
// and bound the context with compaction alone.
//
// Run the session keyspace under maxmemory-policy noeviction: an evicted
// log loses history, and an evicted stream counter would reuse sequence
// ids, which the append script refuses ([ErrSequenceLost]).
package redis
