package sessioncache

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/internal/eventcodec"
)

// The defaults: enough for a busy server's working set, small enough for
// a laptop.
const (
	DefaultMaxSessions = 1024
	DefaultMaxBytes    = 256 << 20
	DefaultIdleTimeout = 30 * time.Minute
)

// Cache keeps projections of session logs by key. It is safe for
// concurrent use; runs on one key load one after the other, runs on
// different keys in parallel.
type Cache struct {
	maxSessions int
	maxBytes    int64
	idle        time.Duration
	now         func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry
	lru     list.List                // front: most recently used
	bytes   int64
	stats   Stats
}

// entry is one cached session. mu serialises loads of the session; the
// other fields are guarded by the cache's mu, except proj, which only a
// holder of mu touches.
type entry struct {
	key      string
	mu       sync.Mutex
	proj     *helikon.Projection // nil until the first load
	bytes    int64
	lastUsed time.Time
	gone     bool // evicted or invalidated
}

// Stats counts what a [Cache] did.
type Stats struct {
	// Hits are loads served from a cached projection (with the events
	// appended since folded in); Misses are loads of the whole log, for a
	// session not cached or whose cached projection could not be
	// continued (Gaps).
	Hits, Misses, Gaps int64
	// Evictions counts sessions dropped for the limits or idleness.
	Evictions int64
	// Sessions and Bytes are what the cache holds now (Bytes estimated).
	Sessions int
	Bytes    int64
}

// Option configures a [Cache].
type Option func(*Cache)

// WithMaxSessions bounds how many sessions the cache holds (default
// [DefaultMaxSessions]). It must be positive.
func WithMaxSessions(n int) Option { return func(c *Cache) { c.maxSessions = n } }

// WithMaxBytes bounds the estimated memory of the projections the cache
// holds (default [DefaultMaxBytes]). It must be positive.
func WithMaxBytes(n int64) Option { return func(c *Cache) { c.maxBytes = n } }

// WithIdleTimeout sets how long an unused session stays cached (default
// [DefaultIdleTimeout]). It must be positive.
func WithIdleTimeout(d time.Duration) Option { return func(c *Cache) { c.idle = d } }

// ErrInvalidCache reports a [Cache] configured with a limit that is not
// positive.
var ErrInvalidCache = errors.New("sessioncache: invalid configuration")

// New returns an empty Cache.
func New(opts ...Option) (*Cache, error) {
	c := &Cache{
		maxSessions: DefaultMaxSessions,
		maxBytes:    DefaultMaxBytes,
		idle:        DefaultIdleTimeout,
		now:         time.Now,
		entries:     map[string]*list.Element{},
	}
	for _, o := range opts {
		o(c)
	}
	switch {
	case c.maxSessions <= 0:
		return nil, fmt.Errorf("%w: max sessions %d must be positive", ErrInvalidCache, c.maxSessions)
	case c.maxBytes <= 0:
		return nil, fmt.Errorf("%w: max bytes %d must be positive", ErrInvalidCache, c.maxBytes)
	case c.idle <= 0:
		return nil, fmt.Errorf("%w: idle timeout %v must be positive", ErrInvalidCache, c.idle)
	}
	return c, nil
}

// Load returns the messages the log of s projects to ([helikon.Project]),
// from the projection cached under key and the events appended since, or
// from the whole log. The list is the caller's own copy: writing to it
// (an item, an item's content list, the order) changes nothing the cache
// holds or another run reads. The parts themselves are values shared with
// the cache, as every projection's are: a changed part is stored anew,
// not written through (the bytes of a tool call's arguments or an image
// are not to be written). [Cache.View] returns the cache's own list,
// without the copy.
func (c *Cache) Load(ctx context.Context, key string, s helikon.Session) ([]helikon.Item, error) {
	items, err := c.View(ctx, key, s)
	if err != nil {
		return nil, err
	}
	return ownCopy(items), nil
}

// View is [Cache.Load] without the copy: the list it returns is the one
// the cache holds and hands to every run on the session, valid for as
// long as the caller likes (later loads never change it) and never to be
// written. The default runner reads it so ([helikon.HistoryRunner]): a run
// copies the history once, into its own conversation.
func (c *Cache) View(ctx context.Context, key string, s helikon.Session) ([]helikon.Item, error) {
	e := c.acquire(key)
	e.mu.Lock()
	defer e.mu.Unlock()
	added, err := c.refresh(ctx, e, s)
	if err != nil {
		c.drop(e)
		return nil, err
	}
	items := e.proj.Items()
	c.settle(e, added)
	return items, nil
}

// refresh brings e's projection up to the end of the log and returns the
// estimated bytes it added.
func (c *Cache) refresh(ctx context.Context, e *entry, s helikon.Session) (int64, error) {
	if e.proj != nil {
		evs, err := s.Events(ctx, e.proj.Seq())
		if err == nil && continues(e.proj.Seq(), evs) {
			e.proj.Apply(evs...)
			c.count(func(st *Stats) { st.Hits++ })
			return size(evs), nil
		}
		if err != nil && ctx.Err() != nil {
			return 0, err
		}
		// A gap, or a read that failed: start over from the whole log.
		c.count(func(st *Stats) { st.Gaps++ })
	}
	p, err := fullLoad(ctx, s)
	if err != nil {
		return 0, err
	}
	e.proj = p
	c.count(func(st *Stats) { st.Misses++ })
	return itemsSize(p.Items()) - e.bytes, nil
}

// ProjectionLoader is a session that loads its projection itself, as the
// session backends do when they keep compacted snapshots; the cache's full
// loads use it.
type ProjectionLoader interface {
	LoadProjection(ctx context.Context) (*helikon.Projection, error)
}

func fullLoad(ctx context.Context, s helikon.Session) (*helikon.Projection, error) {
	if l, ok := s.(ProjectionLoader); ok {
		return l.LoadProjection(ctx)
	}
	return eventcodec.LoadProjection(ctx, nil, eventcodec.Each(s.Events), 0)
}

// continues reports whether evs are the events right after seq, in order.
func continues(seq helikon.SequenceID, evs []helikon.SessionEvent) bool {
	for i, ev := range evs {
		if ev.Seq != seq+1+helikon.SequenceID(i) {
			return false
		}
	}
	return true
}

// acquire returns the entry for key, creating it, and marks it used.
func (c *Cache) acquire(key string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		e := el.Value.(*entry)
		e.lastUsed = now
		return e
	}
	e := &entry{key: key, lastUsed: now}
	c.entries[key] = c.lru.PushFront(e)
	return e
}

// settle accounts for added bytes of e and enforces the limits.
func (c *Cache) settle(e *entry, added int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.gone {
		return
	}
	e.bytes += added
	c.bytes += added
	if e.bytes > c.maxBytes {
		c.remove(e, true)
		return
	}
	for len(c.entries) > c.maxSessions || c.bytes > c.maxBytes {
		c.remove(c.lru.Back().Value.(*entry), true)
	}
}

// expire drops sessions idle for longer than the idle timeout.
func (c *Cache) expire(now time.Time) {
	for el := c.lru.Back(); el != nil; el = c.lru.Back() {
		e := el.Value.(*entry)
		if now.Sub(e.lastUsed) <= c.idle {
			return
		}
		c.remove(e, true)
	}
}

// remove forgets e; the caller holds c.mu.
func (c *Cache) remove(e *entry, evicted bool) {
	if e.gone {
		return
	}
	e.gone = true
	c.lru.Remove(c.entries[e.key])
	delete(c.entries, e.key)
	c.bytes -= e.bytes
	if evicted {
		c.stats.Evictions++
	}
}

func (c *Cache) drop(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(e, false)
}

func (c *Cache) count(f func(*Stats)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.stats)
}

// Invalidate forgets the projection cached under key: the next load reads
// the log whole. Call it when a log is deleted or rewritten.
func (c *Cache) Invalidate(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el.Value.(*entry), false)
	}
}

// Stats returns what the cache did so far and holds now.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.stats
	st.Sessions, st.Bytes = len(c.entries), c.bytes
	return st
}

// Wrap returns s with its Snapshot served by the cache under key; Append
// and Events go to s. key must name the log s reads and writes, and only
// that log, across every store the cache serves (prefix it with the
// store, e.g. "sqlite:"+id).
func (c *Cache) Wrap(key string, s helikon.Session) helikon.Session {
	return &cached{Session: s, c: c, key: key}
}

type cached struct {
	helikon.Session
	c   *Cache
	key string
}

// Snapshot returns the cached projection, brought up to date, as the
// caller's own copy ([Cache.Load]).
func (s *cached) Snapshot(ctx context.Context) ([]helikon.Item, error) {
	return s.c.Load(ctx, s.key, s.Session)
}

// SharedSnapshot returns the cached projection, brought up to date,
// without a copy ([Cache.View]): the default runner's read of a run's
// history (see runner.SharedSnapshotter).
func (s *cached) SharedSnapshot(ctx context.Context) ([]helikon.Item, error) {
	return s.c.View(ctx, s.key, s.Session)
}

// AppendOnly reports whether the wrapped session says its log is never
// trimmed (an AppendOnly method returning true, as package sqlite's and
// postgres's sessions have); a capped Redis log, or a session that does
// not say, is not.
func (s *cached) AppendOnly() bool {
	a, ok := s.Session.(interface{ AppendOnly() bool })
	return ok && a.AppendOnly()
}

// ownCopy returns items in a new list whose items' content lists are new
// too: one array of items and one of the parts they all hold.
func ownCopy(items []helikon.Item) []helikon.Item {
	if items == nil {
		return nil
	}
	parts := 0
	for _, it := range items {
		parts += len(it.Content)
	}
	out := make([]helikon.Item, len(items))
	flat := make([]helikon.ContentPart, parts)
	for i, it := range items {
		if it.Content != nil {
			n := copy(flat, it.Content)
			it.Content, flat = flat[:n:n], flat[n:]
		}
		out[i] = it
	}
	return out
}

// itemOverhead is the estimated memory of one projected message beyond its
// text: the Item, its content slice, the boxed part, the event fields.
const itemOverhead = 150

// size estimates the memory events add to a projection.
func size(evs []helikon.SessionEvent) int64 {
	var n int64
	for _, ev := range evs {
		n += itemOverhead + int64(len(ev.Args)+len(ev.CallID)+len(ev.Name)+len(ev.Agent)+len(ev.Summary))
		n += partsSize(ev.Content)
	}
	return n
}

// itemsSize estimates the memory of projected messages.
func itemsSize(items []helikon.Item) int64 {
	var n int64
	for _, it := range items {
		n += itemOverhead + int64(len(it.Agent)) + partsSize(it.Content)
	}
	return n
}

func partsSize(parts []helikon.ContentPart) int64 {
	var n int64
	for _, p := range parts {
		switch p := p.(type) {
		case helikon.TextPart:
			n += int64(len(p.Text))
		case helikon.ReasoningPart:
			n += int64(len(p.Text) + len(p.Signature) + len(p.Data) + len(p.ID))
		case helikon.ImagePart:
			n += int64(len(p.URL) + len(p.MediaType) + len(p.Data))
		case helikon.ToolUsePart:
			n += int64(len(p.CallID) + len(p.Name) + len(p.Args))
		case helikon.ToolResultPart:
			n += int64(len(p.CallID)+len(p.Name)) + partsSize(p.Content)
		}
		n += 32
	}
	return n
}
