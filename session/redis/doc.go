// Package redis stores [helikon.Session] logs in Redis Streams, through
// go-redis/v9: the low-latency shared store.
//
// Each session is a stream at helikon:session:{id}:events. An entry's ID
// is "<seq>-1", its sequence id, and it holds one field, payload: the
// event's JSON, its kind and time included. Entries written by earlier
// versions also carry seq, and earlier still kind and ts (Unix
// nanoseconds), copies of what the ID and the payload hold; this version
// takes the sequence id from the ID and the payload by name, so every form
// reads alike and no migration is needed. (Each copy dropped made a full
// read cheaper: kind and ts about a third for the server; then an XRANGE
// of 1,000 entries took the server 472 µs with seq and 294 µs without.)
// The version before this one reads seq from its field and fails
// on an entry without it, so during a rolling upgrade from it open
// sessions [WithSeqField] until no process of it is left. The braces make
// the id a Redis Cluster hash tag, so a session's stream and its counter
// live in one slot. The package shares its name with
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
// # Atomic appends
//
// An append is one Lua script, which Redis runs atomically: it reserves
// the batch's sequence ids with INCRBY on helikon:session:{id}:seq and
// XADDs each event with the stream ID "<seq>-1". Concurrent writers can
// therefore never share or skip a sequence id, and reads after a position
// are a range seek on the stream. Because seq comes from the counter
// rather than the stream's length, it stays unique and monotonic when the
// stream is trimmed.
//
// # Reads
//
// Events and loads read the stream with XRANGE in pages of 1,000 entries,
// so one command never holds the server for a whole long log, into a
// reused buffer as raw RESP, and decode each payload straight from it
// (go-redis's parsed XRANGE reply costs about fifteen allocations an
// entry). go-redis neither retries a raw command nor follows a cluster's
// redirection for it, so a page is retried once on a broken connection,
// and read through go-redis's parsed XRANGE on MOVED, ASK, TRYAGAIN or
// CLUSTERDOWN. Appends never leave a hole, so the pages of a read join
// up; only a trim ([WithMaxLen]) by another handle between two pages can
// break that: the read then starts over (twice at most, then fails with
// [ErrTrimmedDuringRead]) instead of returning events with a hole in them.
//
// # Retention
//
// By default a stream grows without bound. [WithMaxLen] trims each
// session's stream to its newest n entries on every append (XADD MAXLEN).
// The trade-off: trimmed events are gone from Events and Snapshot, so a
// snapshot may begin mid-conversation, even with a tool result whose call
// was trimmed, which some providers reject; an old compaction summary can
// be trimmed too. Choose n well above the compaction window of a
// [helikon.CompactingSession] wrapping the session, or keep the default
// and bound the context with compaction alone.
//
// Run the session keyspace under maxmemory-policy noeviction: an evicted
// stream loses history, and an evicted counter would reuse sequence ids,
// which the append script refuses ([ErrSequenceLost]).
package redis
