package a2a

import (
	"container/heap"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// ErrTaskTooLarge reports a task the [Server] does not keep: one larger,
// as JSON, than [WithMaxTaskBytes], or one that would need room taken from
// principals holding fewer bytes than its owner would (see
// [WithMaxTasks]). The save that would store it fails and evicts nothing;
// a task its run grew past the bound keeps its last stored state, marked
// failed. The error the store returns also wraps a2a.ErrServerError, so
// that a client reads it as a JSON-RPC server error (-32000) that says
// why, not as a bare internal error.
var ErrTaskTooLarge = errors.New("a2a: the task is too large for the server to keep")

// taskStore is the [Server]'s a2asrv.TaskStore: tasks kept as JSON (so
// every Get is a deep copy nobody else shares), each owned by the
// principal that created it, and bounded in number and bytes. A task of
// another principal does not exist for the caller: Get and Save answer
// [a2apb.ErrTaskNotFound], so tasks/get, tasks/cancel, tasks/resubscribe
// and a message on the task all fail as for an unknown id, and never
// confirm that the id exists.
//
// A save past a bound makes room before it stores anything, one task at
// a time, as [WithMaxTasks] states; the victim is found in O(log n)
// through two heaps of the owners, and a save refused after evicting puts
// its evictions back where they were.
type taskStore struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64  // of every task's data
	saves    uint64 // counts saves: a task's seq is its last one's
	tasks    map[a2apb.TaskID]*storedTask
	owners   map[string]*ownerTasks
	// byCount and byBytes order the owners by tasks and by bytes, most
	// first, so that eviction finds the principal holding the most in
	// O(log n), not by a scan of every principal under the lock.
	byCount, byBytes ownerHeap
}

// ownerTasks order one principal's finished and unfinished tasks, least
// recently saved first, and count their bytes.
type ownerTasks struct {
	name       string
	done, live *list.List // of *storedTask
	bytes      int64
	// at is the owner's index in byCount and byBytes.
	at [2]int
	// rank orders owners holding as much by their next task to give up:
	// a finished one first, then the least recently saved. It is kept
	// with the heaps (by resized), so that a comparison is of two
	// numbers: among 10,000 one-task principals every comparison is a tie.
	rank uint64
}

// setRank sets o.rank from o's next task to give up: its seq, with the
// top bit set for an unfinished task; an owner holding none ranks last.
func (o *ownerTasks) setRank() {
	e := o.next()
	if e == nil {
		o.rank = math.MaxUint64
		return
	}
	st := e.Value.(*storedTask)
	o.rank = st.seq
	if st.in == o.live {
		o.rank |= 1 << 63
	}
}

func (o *ownerTasks) len() int { return o.done.Len() + o.live.Len() }

// next is the task the owner gives up first: its least recently saved
// finished one, else its least recently saved unfinished one; nil for an
// owner holding none.
func (o *ownerTasks) next() *list.Element { return o.nextBut(nil) }

// nextBut is next, skipping the task x.
func (o *ownerTasks) nextBut(x *storedTask) *list.Element {
	for _, l := range [2]*list.List{o.done, o.live} {
		e := l.Front()
		if e != nil && e.Value == x {
			e = e.Next()
		}
		if e != nil {
			return e
		}
	}
	return nil
}

type storedTask struct {
	id    a2apb.TaskID
	owner string
	data  []byte
	seq   uint64
	elem  *list.Element
	in    *list.List
}

func newTaskStore(max int, maxBytes int64) *taskStore {
	return &taskStore{max: max, maxBytes: maxBytes, tasks: make(map[a2apb.TaskID]*storedTask), owners: make(map[string]*ownerTasks),
		byCount: ownerHeap{which: 0}, byBytes: ownerHeap{which: 1}}
}

// ownerHeap is a max-heap of owners by task count (which 0) or bytes
// (which 1); among equals, by rank.
type ownerHeap struct {
	which int
	os    []*ownerTasks
}

func (h *ownerHeap) size(o *ownerTasks) int64 {
	if h.which == 0 {
		return int64(o.len())
	}
	return o.bytes
}

func (h *ownerHeap) Len() int { return len(h.os) }
func (h *ownerHeap) Less(i, j int) bool {
	a, b := h.os[i], h.os[j]
	if sa, sb := h.size(a), h.size(b); sa != sb {
		return sa > sb
	}
	return a.rank < b.rank
}
func (h *ownerHeap) Swap(i, j int) {
	h.os[i], h.os[j] = h.os[j], h.os[i]
	h.os[i].at[h.which], h.os[j].at[h.which] = i, j
}
func (h *ownerHeap) Push(x any) {
	o := x.(*ownerTasks)
	o.at[h.which] = len(h.os)
	h.os = append(h.os, o)
}
func (h *ownerHeap) Pop() any {
	o := h.os[len(h.os)-1]
	h.os[len(h.os)-1] = nil
	h.os = h.os[:len(h.os)-1]
	return o
}

// topBut is the first owner of h but o, or nil.
func (h *ownerHeap) topBut(o *ownerTasks) *ownerTasks {
	switch {
	case len(h.os) == 0:
		return nil
	case h.os[0] != o:
		return h.os[0]
	case len(h.os) == 1:
		return nil
	case len(h.os) == 2 || h.Less(1, 2):
		return h.os[1]
	}
	return h.os[2]
}

// resized restores both heaps' order after o's tasks, bytes or next task
// to give up changed.
func (s *taskStore) resized(o *ownerTasks) {
	o.setRank()
	heap.Fix(&s.byCount, o.at[0])
	heap.Fix(&s.byBytes, o.at[1])
}

// ownerOf returns the principal's tasks, made (and placed in the heaps)
// if it holds none.
func (s *taskStore) ownerOf(name string) *ownerTasks {
	o := s.owners[name]
	if o == nil {
		o = &ownerTasks{name: name, done: list.New(), live: list.New(), rank: math.MaxUint64}
		s.owners[name] = o
		heap.Push(&s.byCount, o)
		heap.Push(&s.byBytes, o)
	}
	return o
}

// Save stores task for the principal on ctx, making room first past a
// bound. It fails with [ErrTaskTooLarge] (and a2a.ErrServerError) when
// the task cannot be kept, and then changes nothing, but for one case:
// the SDK answers a refused save by saving the task failed, which is as
// large, and that save keeps the stored, unfinished task, marked failed
// with a message saying why, so that it does not read as working for
// ever once its run has stopped.
func (s *taskStore) Save(ctx context.Context, task *a2apb.Task) error {
	data, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", task.ID, err)
	}
	owner := principalFrom(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.tasks[task.ID]
	if ok && x.owner != owner {
		return a2apb.ErrTaskNotFound
	}
	if !ok {
		x = &storedTask{id: task.ID, owner: owner}
	}
	err = s.store(x, data, task.Status.State.Terminal())
	if err != nil && ok && task.Status.State == a2apb.TaskStateFailed && x.in == s.owners[owner].live {
		s.keepFailed(x, task.Status.Timestamp)
	}
	return err
}

// store stores data as task x, finished or not, or fails with
// [ErrTaskTooLarge] and changes nothing.
func (s *taskStore) store(x *storedTask, data []byte, finished bool) error {
	if int64(len(data)) > s.maxBytes {
		return fmt.Errorf("%w: task %s is %d bytes as JSON, past the server's bound of %d (%w)",
			ErrTaskTooLarge, x.id, len(data), s.maxBytes, a2apb.ErrServerError)
	}
	// Room is made before the task is stored, counted at its new size, so
	// that a refused save has only evictions to put back.
	if !s.makeRoom(x, int64(len(data))) {
		return fmt.Errorf("%w: task %s is %d bytes as JSON; the server keeps %d bytes of tasks and "+
			"would have to take them from principals holding fewer than the caller (%w)",
			ErrTaskTooLarge, x.id, len(data), s.maxBytes, a2apb.ErrServerError)
	}
	o := s.ownerOf(x.owner)
	if x.elem == nil {
		s.tasks[x.id] = x
	}
	delta := int64(len(data) - len(x.data))
	o.bytes += delta
	s.bytes += delta
	x.data = data
	s.saves++
	x.seq = s.saves
	to := o.live
	if finished {
		to = o.done
	}
	if x.in != nil {
		x.in.Remove(x.elem)
	}
	x.elem, x.in = to.PushBack(x), to
	s.resized(o)
	return nil
}

// tooLargeText is the status message of a task kept failed because it
// grew past what the server keeps.
const tooLargeText = "the task grew larger than the server keeps; its last stored state is kept, failed"

// keepFailed marks the stored task x failed, saying why, if that fits.
func (s *taskStore) keepFailed(x *storedTask, at *time.Time) {
	var t a2apb.Task
	if json.Unmarshal(x.data, &t) != nil {
		return // the store wrote it: not reached
	}
	t.Status = a2apb.TaskStatus{State: a2apb.TaskStateFailed, Timestamp: at,
		Message: a2apb.NewMessageForTask(a2apb.MessageRoleAgent, &t, a2apb.TextPart{Text: tooLargeText})}
	data, err := json.Marshal(&t)
	if err == nil {
		// Refused too, it stays as it was: unfinished, as the error the
		// client got says.
		_ = s.store(x, data, true)
	}
}

// evicted is a task makeRoom evicted, and where it was: first in its
// list, or right after the task being saved.
type evicted struct {
	st    *storedTask
	done  bool
	after *list.Element
}

// makeRoom evicts tasks until x, at size bytes, fits in the bounds, as
// [taskStore] states; if it cannot, it puts back what it evicted and
// reports false.
func (s *taskStore) makeRoom(x *storedTask, size int64) bool {
	added := 0
	if x.elem == nil {
		added = 1
	}
	delta := size - int64(len(x.data))
	var gone []evicted
	for len(s.tasks)+added > s.max || s.bytes+delta > s.maxBytes {
		h, more := &s.byCount, int64(added)
		if len(s.tasks)+added <= s.max {
			h, more = &s.byBytes, delta
		}
		e := s.victim(h, x, more)
		if e == nil {
			for i := len(gone) - 1; i >= 0; i-- {
				s.putBack(gone[i])
			}
			return false
		}
		gone = append(gone, s.evict(e))
	}
	return true
}

// victim is the task to evict for x by heap h, x's owner counted with
// more tasks or bytes; nil if none may go.
func (s *taskStore) victim(h *ownerHeap, x *storedTask, more int64) *list.Element {
	mine := s.owners[x.owner]
	mySize := more
	if mine != nil {
		mySize += h.size(mine)
	}
	other := h.topBut(mine)
	if mine != nil && (other == nil || mySize >= h.size(other)) {
		if e := mine.nextBut(x); e != nil {
			return e
		}
	}
	if other != nil && h.size(other) >= mySize {
		return other.next()
	}
	return nil
}

// evict forgets the task at e and says where it was.
func (s *taskStore) evict(e *list.Element) evicted {
	st := e.Value.(*storedTask)
	o := s.owners[st.owner]
	gone := evicted{st: st, done: st.in == o.done, after: e.Prev()}
	st.in.Remove(e)
	st.elem, st.in = nil, nil
	o.bytes -= int64(len(st.data))
	s.bytes -= int64(len(st.data))
	delete(s.tasks, st.id)
	if o.len() == 0 {
		delete(s.owners, o.name)
		heap.Remove(&s.byCount, o.at[0])
		heap.Remove(&s.byBytes, o.at[1])
		return gone
	}
	s.resized(o)
	return gone
}

// putBack undoes evict; undone last first, each task returns to where it
// was.
func (s *taskStore) putBack(g evicted) {
	o := s.ownerOf(g.st.owner)
	l := o.live
	if g.done {
		l = o.done
	}
	if g.after != nil {
		g.st.elem = l.InsertAfter(g.st, g.after)
	} else {
		g.st.elem = l.PushFront(g.st)
	}
	g.st.in = l
	o.bytes += int64(len(g.st.data))
	s.bytes += int64(len(g.st.data))
	s.tasks[g.st.id] = g.st
	s.resized(o)
}

// owns reports whether the store holds task id for the principal on ctx.
func (s *taskStore) owns(ctx context.Context, id a2apb.TaskID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tasks[id]
	return ok && st.owner == principalFrom(ctx)
}

// Get returns a copy of the task if the principal on ctx owns it.
func (s *taskStore) Get(ctx context.Context, id a2apb.TaskID) (*a2apb.Task, error) {
	s.mu.Lock()
	st, ok := s.tasks[id]
	var data []byte
	if ok && st.owner == principalFrom(ctx) {
		data = st.data
	}
	s.mu.Unlock()
	if data == nil {
		return nil, a2apb.ErrTaskNotFound
	}
	var t a2apb.Task
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("a2a: decoding task %s: %w", id, err)
	}
	return &t, nil
}
