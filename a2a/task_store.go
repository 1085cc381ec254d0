package a2a

import (
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
// confirm that the id exists.
type taskStore struct {
	mu    sync.Mutex
	max   int
	tasks map[a2apb.TaskID]*storedTask
	// done and live order the finished and the unfinished tasks oldest
	// first: past max, the oldest finished task goes first.
	done, live *list.List
}

type storedTask struct {
	owner string
	data  []byte
	elem  *list.Element
	in    *list.List
}

func newTaskStore(max int) *taskStore {
	return &taskStore{max: max, tasks: make(map[a2apb.TaskID]*storedTask), done: list.New(), live: list.New()}
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
	if !ok {
		st = &storedTask{owner: owner}
		s.tasks[task.ID] = st
	}
	st.data = data
	to := s.live
	if task.Status.State.Terminal() {
		to = s.done
	}
	if st.in != to {
		if st.in != nil {
			st.in.Remove(st.elem)
		}
		st.elem, st.in = to.PushBack(task.ID), to
	}
	for len(s.tasks) > s.max {
		oldest := s.done.Front()
		if oldest == nil {
			oldest = s.live.Front()
		}
		id := oldest.Value.(a2apb.TaskID)
		s.tasks[id].in.Remove(oldest)
		delete(s.tasks, id)
	}
	return nil
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
