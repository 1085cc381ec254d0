package a2a

import (
	"container/heap"
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// taskStore is the [Server]'s a2asrv.TaskStore: tasks kept as JSON (so
// every Get is a deep copy nobody else shares), each owned by the
// principal that created it, and bounded in number. A task of another
// principal does not exist for the caller: Get and Save answer
// [a2apb.ErrTaskNotFound], so tasks/get, tasks/cancel, tasks/resubscribe
// and a message on the task all fail as for an unknown id, and never
// confirm that the id exists. Past the bound in number (or in bytes),
// the principal holding the most tasks (or bytes) gives up its oldest
// finished one (else its oldest unfinished one): a principal that floods
// the store forgets its own tasks, not another's.
type taskStore struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64 // of every task's data
	tasks    map[a2apb.TaskID]*storedTask
	owners   map[string]*ownerTasks
	// byCount and byBytes order the owners by tasks and by bytes, most
	// first, so that eviction finds the principal holding the most in
	// O(log n), not by a scan of every principal under the lock.
	byCount, byBytes ownerHeap
}

// ownerTasks order one principal's finished and unfinished tasks, oldest
// first, and count their bytes.
type ownerTasks struct {
	name       string
	done, live *list.List
	bytes      int64
	// at is the owner's index in byCount and byBytes.
	at [2]int
}

func (o *ownerTasks) len() int { return o.done.Len() + o.live.Len() }

type storedTask struct {
	owner string
	data  []byte
	elem  *list.Element
	in    *list.List
}

func newTaskStore(max int, maxBytes int64) *taskStore {
	return &taskStore{max: max, maxBytes: maxBytes, tasks: make(map[a2apb.TaskID]*storedTask), owners: make(map[string]*ownerTasks),
		byCount: ownerHeap{which: 0}, byBytes: ownerHeap{which: 1}}
}

// ownerHeap is a max-heap of owners by task count (which 0) or bytes
// (which 1).
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

func (h *ownerHeap) Len() int           { return len(h.os) }
func (h *ownerHeap) Less(i, j int) bool { return h.size(h.os[i]) > h.size(h.os[j]) }
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

// resized restores both heaps' order after o's tasks or bytes changed.
func (s *taskStore) resized(o *ownerTasks) {
	heap.Fix(&s.byCount, o.at[0])
	heap.Fix(&s.byBytes, o.at[1])
}

// Save stores task for the principal on ctx.
func (s *taskStore) Save(ctx context.Context, task *a2apb.Task) error {
	data, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("a2a: encoding task %s: %w", task.ID, err)
	}
	owner := principalFrom(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tasks[task.ID]
	if ok && st.owner != owner {
		return a2apb.ErrTaskNotFound
	}
	o := s.owners[owner]
	if o == nil {
		o = &ownerTasks{name: owner, done: list.New(), live: list.New()}
		s.owners[owner] = o
		heap.Push(&s.byCount, o)
		heap.Push(&s.byBytes, o)
	}
	if !ok {
		st = &storedTask{owner: owner}
		s.tasks[task.ID] = st
	}
	delta := int64(len(data) - len(st.data))
	o.bytes += delta
	s.bytes += delta
	st.data = data
	to := o.live
	if task.Status.State.Terminal() {
		to = o.done
	}
	if st.in != to {
		if st.in != nil {
			st.in.Remove(st.elem)
		}
		st.elem, st.in = to.PushBack(task.ID), to
	}
	s.resized(o)
	for len(s.tasks) > s.max || s.bytes > s.maxBytes {
		s.evict(owner, len(s.tasks) <= s.max)
	}
	return nil
}

// evict forgets the oldest finished task, else the oldest unfinished one,
// of the principal holding the most tasks (the most bytes, when bytes
// is set); saver wins a tie, so that a principal alone at the bound
// makes room from its own.
func (s *taskStore) evict(saver string, bytes bool) {
	h := &s.byCount
	if bytes {
		h = &s.byBytes
	}
	o := h.os[0] // some task is stored, or no bound is passed
	if mine := s.owners[saver]; mine != nil && h.size(mine) >= h.size(o) {
		o = mine
	}
	oldest := o.done.Front()
	if oldest == nil {
		oldest = o.live.Front()
	}
	id := oldest.Value.(a2apb.TaskID)
	st := s.tasks[id]
	st.in.Remove(oldest)
	o.bytes -= int64(len(st.data))
	s.bytes -= int64(len(st.data))
	delete(s.tasks, id)
	if o.len() == 0 {
		delete(s.owners, o.name)
		heap.Remove(&s.byCount, o.at[0])
		heap.Remove(&s.byBytes, o.at[1])
		return
	}
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
