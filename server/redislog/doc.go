// Package redislog is a [server.EventLog] on Redis Streams: every replica
// of an agent server behind a load balancer shares it, so a client can
// replay a run, or resume an SSE stream with Last-Event-ID, on any replica,
// whichever one drives the run.
//
//	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	events, err := redislog.New(ctx, client)
//	if err != nil { … }
//	defer events.Close()
//	srv, err := server.New([]helikon.Agent{agent}, server.WithEventLog(events))
//
// # Layout
//
// A run is two keys sharing the hash tag {id}, so they live in one Redis
// Cluster slot: <prefix>run:{id}:events, a stream whose entry IDs are
// "<seq>-0" and whose fields are t (the event type) and d (its JSON), and
// <prefix>run:{id}:info, a hash holding the run's record and the replica
// that owns it (with its status, its pause id and the number of its last
// status change as fields of their own, for the scripts that test them). Ending a run adds an end marker to its
// stream (an entry with an automatic ID, which sorts after every record
// and refuses later appends), so tails end at once, and lists the run in
// the sorted
// set <prefix>runs:finished, scored by finish time, for pruning. Readers
// tail a live run with XREAD BLOCK. A replica that outlived its lease
// cannot overwrite the verdict another replica reached: Update stores
// nothing for a run that has already ended. A paused run has no owner to
// lose; Claim, a script that tests the pause id, hands it to exactly one
// replica.
//
// # Batched writes
//
// Append on a run this replica drives queues the record and returns; a
// flusher goroutine (a Log has two, each run goes through one, so its
// writes stay in order) sends what its runs queued since its last round
// trip as one pipeline, one script call per run (a script that appends the
// run's records and, when Update queued a status change behind them,
// stores it and the end marker in the same atomic step). Nothing waits on
// a timer: records queued while a pipeline is out go in the next one, so
// a quiet run's record leaves at once and a busy server's runs share
// round trips. Update returns once Redis has stored it; queued records go
// out whatever becomes of the caller's context, and Close sends what is
// queued before it releases the lease. Appends wait once 32 MiB of record
// data is queued.
//
// A replica serves the tails of the runs it drives from the records it
// appended, kept in process while the run runs there (no XREAD per
// event), and reads Redis from the run's pause or end on, and for runs
// other replicas drive. A record reaches those tails only once Redis has
// stored it, so no client sees a record, or a terminal event, that
// another replica could not replay.
//
// When Redis does not store a batch (it is down, or the run was ended by
// another replica), the run's tails end with a [*WriteError] naming the
// records lost, and so do its next Append and its Update; Update then
// stores the run as failed, with that error, if Redis is back. A run's
// records reach Redis in order or not at all past the first one lost.
//
// # Redis unreachable
//
// A read or write that finds Redis unreachable (a dial refused or timed
// out, a connection dropped, a call unanswered for 30 s, the log's own
// bound whatever the client's timeouts and the caller's context) opens a
// circuit: from then on the log's writes (the batches, Update, Create,
// Claim, the lease's renewal and its release at Close) and its reads
// (Info, Tail, Runs, Prune, RelayCancel) fail at once with an error
// wrapping [ErrUnavailable], without a round trip, until a probe (a PING
// every 250 ms) finds Redis answering again. Only the first call to a
// dead Redis waits out the client's dial timeouts and retries: give the
// client short ones (DialTimeout, MaxRetries, and DialerRetries, which
// go-redis spends on every dial of every attempt, 100 ms apart: with
// MaxRetries 1 and DialTimeout 1 s, a refused dial costs the first call
// about 850 ms with the default DialerRetries of 5 and 20 ms with 1;
// BenchmarkLog_FirstWriteToADeadRedis), so a server shutting down
// does not spend its grace on writes that cannot succeed, and the runs'
// streams still end with the records lost. A status change Update could
// not store for that (a run's end, with the records it lost, or its
// pause) is kept, the newest per run, and stored once the probe finds
// Redis back: else the run, its replica's lease alive, would read as
// running for ever. Close drops what is kept; the runs then read as
// interrupted. Each status change carries a number taken when it is set,
// in the replica's order, and Redis refuses one older than the run's
// stored change, or one from a replica that no longer owns the run (its
// pause was claimed elsewhere), with [ErrStaleStatus]: a kept change
// that reaches Redis after a newer one written directly does not undo it.
//
// # Orphaned runs
//
// Each Log is one replica: it keeps <prefix>replica:<id> alive with a
// lease it renews every third of [WithLease] (default 15 s). A reader that
// finds a running (or queued) run whose owner's lease has expired (the
// replica crashed or was killed) marks the run interrupted and appends a
// synthetic run_failed record, in one optimistic transaction, so no run
// stays running forever and every stream ends with a terminal frame. A
// tail waiting after a position past the run's end (a resume point no
// stream sent) ends once the run is final, without records: the end
// marker's automatic ID sorts below such a position.
//
// # Cancels
//
// Log is a [server.CancelRelay]: each replica subscribes to
// <prefix>replica:<id>:cancel, and a replica asked to cancel a run it does
// not drive publishes the run id on the owner's channel (see
// [Log.RelayCancel]).
package redislog
