package a2a

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// TestTaskStore_AccountingAndOwnerOrderHoldUnderRandomSaves saves tasks
// of many principals, new ones and growing ones, finished and not, some
// past the byte bound, and checks after each save that the bounds hold,
// that the bytes counted are those stored, that the owner heaps are
// ordered, that a refused save changed nothing, and that a save took
// tasks only from principals holding, before it, at least as many tasks
// or bytes as the saver holds after it. Some saves are of a failed state,
// which a refusal may store as the last stored state, failed.
func TestTaskStore_AccountingAndOwnerOrderHoldUnderRandomSaves(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newTaskStore(40, 20<<10)
	refused := 0
	for i := range 3000 {
		owner := fmt.Sprint("p", r.IntN(25))
		ctx := withPrincipal(context.Background(), owner)
		task := &a2apb.Task{ID: a2apb.TaskID(fmt.Sprint("t", r.IntN(200))), Status: a2apb.TaskStatus{State: a2apb.TaskStateWorking}}
		switch r.IntN(6) {
		case 0, 1:
			task.Status.State = a2apb.TaskStateCompleted
		case 2:
			task.Status.State = a2apb.TaskStateFailed
		}
		pad := r.IntN(2000)
		if r.IntN(50) == 0 {
			pad = r.IntN(25 << 10)
		}
		task.Metadata = map[string]any{"pad": strings.Repeat("x", pad)}
		before := snapshot(s)
		err := s.Save(ctx, task)
		switch {
		case err == nil:
			if st := s.tasks[task.ID]; st == nil || st.owner != owner {
				t.Fatalf("save %d: task %s is not stored after its save", i, task.ID)
			}
		case errors.Is(err, ErrTaskTooLarge) && errors.Is(err, a2apb.ErrServerError):
			refused++
			// A refused failed state may mark the stored task failed.
			if after := snapshot(s); task.Status.State != a2apb.TaskStateFailed && !maps.Equal(after.order, before.order) {
				t.Fatalf("save %d: a refused save changed the store", i)
			}
		case errors.Is(err, a2apb.ErrTaskNotFound):
		default:
			t.Fatal(err)
		}
		after := snapshot(s)
		mine := after.held[owner]
		for p, h := range before.held {
			if p != owner && after.held[p].tasks < h.tasks && h.tasks < mine.tasks && h.bytes < mine.bytes {
				t.Fatalf("save %d: %s, holding %+v after, took a task of %s, holding %+v before", i, owner, mine, p, h)
			}
		}
		checkStore(t, i, s)
	}
	if refused == 0 {
		t.Fatal("no save was refused: the test does not reach the refusal")
	}
}

// checkStore checks the store's bounds, accounting and heaps.
func checkStore(t *testing.T, i int, s *taskStore) {
	t.Helper()
	if len(s.tasks) > s.max || s.bytes > s.maxBytes {
		t.Fatalf("save %d: %d tasks, %d bytes past the bounds", i, len(s.tasks), s.bytes)
	}
	var total int64
	per := map[string]int64{}
	count := map[string]int64{}
	for _, st := range s.tasks {
		total += int64(len(st.data))
		per[st.owner] += int64(len(st.data))
		count[st.owner]++
	}
	if total != s.bytes || len(per) != len(s.owners) {
		t.Fatalf("save %d: %d bytes counted, %d stored; %d owners, %d hold tasks", i, s.bytes, total, len(s.owners), len(per))
	}
	for name, o := range s.owners {
		if o.bytes != per[name] || int64(o.len()) != count[name] {
			t.Fatalf("save %d: %s counted %d bytes %d tasks, holds %d %d", i, name, o.bytes, o.len(), per[name], count[name])
		}
		for _, l := range [...]*list.List{o.done, o.live} {
			var last uint64
			for e := l.Front(); e != nil; e = e.Next() {
				st := e.Value.(*storedTask)
				if st.seq <= last || st.elem != e || st.in != l || s.tasks[st.id] != st {
					t.Fatalf("save %d: %s's list is out of order or out of step with its tasks", i, name)
				}
				last = st.seq
			}
		}
	}
	for _, h := range []*ownerHeap{&s.byCount, &s.byBytes} {
		if h.Len() != len(s.owners) {
			t.Fatalf("save %d: %d owners, a heap of %d", i, len(s.owners), h.Len())
		}
		for j := 1; j < h.Len(); j++ {
			if h.Less(j, (j-1)/2) || h.os[j].at[h.which] != j {
				t.Fatalf("save %d: heap %d is out of order at %d", i, h.which, j)
			}
		}
	}
}

type held struct{ tasks, bytes int64 }

// storeState is what a store holds: each task's owner, data and place in
// its owner's lists, and what each principal holds.
type storeState struct {
	order map[a2apb.TaskID]string
	held  map[string]held
}

func snapshot(s *taskStore) storeState {
	st := storeState{order: map[a2apb.TaskID]string{}, held: map[string]held{}}
	for name, o := range s.owners {
		st.held[name] = held{int64(o.len()), o.bytes}
		for _, l := range [...]*list.List{o.done, o.live} {
			n := 0
			for e := l.Front(); e != nil; e = e.Next() {
				x := e.Value.(*storedTask)
				st.order[x.id] = fmt.Sprintf("%s %v %d %d %s", name, l == o.done, n, x.seq, x.data)
				n++
			}
		}
	}
	return st
}

// TestTaskStore_ASaveTakesRoomFromThoseHoldingAsMuchAndNeverItsOwnTask
// pins the eviction policy: who gives up which task past each bound, and
// which saves are refused, leaving the store as it was.
func TestTaskStore_ASaveTakesRoomFromThoseHoldingAsMuchAndNeverItsOwnTask(t *testing.T) {
	type save struct {
		owner, id string
		done      bool
		pad       int
	}
	for _, tt := range []struct {
		name         string
		max          int
		maxBytes     int64
		before       []save
		save         save
		refused      bool
		kept, forgot []string
	}{
		{name: "a newcomer at a store of one-task principals takes the least recently saved finished task",
			max: 3, maxBytes: 1 << 20,
			before: []save{{"a", "a1", true, 0}, {"b", "b1", false, 0}, {"c", "c1", true, 0}},
			save:   save{"d", "d1", false, 0}, kept: []string{"b1", "c1", "d1"}, forgot: []string{"a1"}},
		{name: "among equals an unfinished task goes only when no finished one is left",
			max: 2, maxBytes: 1 << 20,
			before: []save{{"a", "a1", false, 0}, {"b", "b1", true, 0}},
			save:   save{"c", "c1", false, 0}, kept: []string{"a1", "c1"}, forgot: []string{"b1"}},
		{name: "a principal holding the most gives up its own, least recently saved first",
			max: 3, maxBytes: 1 << 20,
			before: []save{{"a", "a1", true, 0}, {"b", "b1", true, 0}, {"b", "b2", true, 0}, {"b", "b1", true, 0}},
			save:   save{"b", "b3", false, 0}, kept: []string{"a1", "b1", "b3"}, forgot: []string{"b2"}},
		{name: "a task finishing past the byte bound is kept; its owner's older unfinished one goes",
			max: 10, maxBytes: 3500,
			before: []save{{"a", "a1", false, 1000}, {"a", "a2", false, 1000}, {"b", "b1", true, 100}},
			save:   save{"a", "a2", true, 2500}, kept: []string{"a2", "b1"}, forgot: []string{"a1"}},
		{name: "a task past the byte bound is refused",
			max: 10, maxBytes: 4000,
			before: []save{{"a", "a1", true, 1000}, {"b", "b1", true, 1000}},
			save:   save{"b", "b2", false, 5000}, refused: true, kept: []string{"a1", "b1"}},
		{name: "a task that fits only by taking from principals holding fewer bytes is refused",
			max: 10, maxBytes: 4000,
			before: []save{{"a", "a1", true, 1500}, {"b", "b1", true, 1500}, {"c", "c1", true, 100}, {"c", "c2", true, 100}},
			save:   save{"c", "c3", false, 3000}, refused: true, kept: []string{"a1", "b1", "c1", "c2"}},
		{name: "a grown task that would take from principals holding fewer bytes is refused and keeps its last save",
			max: 10, maxBytes: 4000,
			before: []save{{"a", "a1", true, 1500}, {"b", "b1", false, 1000}},
			save:   save{"b", "b1", false, 3000}, refused: true, kept: []string{"a1", "b1"}},
		{name: "a large task may take from a principal holding as many bytes",
			max: 10, maxBytes: 6000,
			before: []save{{"a", "a1", true, 1000}, {"a", "a2", true, 3000}, {"b", "b1", true, 100}},
			save:   save{"b", "b1", false, 2500}, kept: []string{"a2", "b1"}, forgot: []string{"a1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTaskStore(tt.max, tt.maxBytes)
			put := func(sv save) error {
				task := &a2apb.Task{ID: a2apb.TaskID(sv.id), Status: a2apb.TaskStatus{State: a2apb.TaskStateWorking},
					Metadata: map[string]any{"pad": strings.Repeat("x", sv.pad)}}
				if sv.done {
					task.Status.State = a2apb.TaskStateCompleted
				}
				return s.Save(withPrincipal(context.Background(), sv.owner), task)
			}
			for _, sv := range tt.before {
				if err := put(sv); err != nil {
					t.Fatal(err)
				}
			}
			before := snapshot(s)
			err := put(tt.save)
			if tt.refused != (err != nil) || err != nil && !(errors.Is(err, ErrTaskTooLarge) && errors.Is(err, a2apb.ErrServerError)) {
				t.Fatalf("Save = %v, want refused %v with ErrTaskTooLarge and ErrServerError", err, tt.refused)
			}
			if after := snapshot(s); tt.refused && !maps.Equal(after.order, before.order) {
				t.Error("a refused save changed the store")
			}
			for _, id := range tt.kept {
				if s.tasks[a2apb.TaskID(id)] == nil {
					t.Errorf("%s was forgotten", id)
				}
			}
			for _, id := range tt.forgot {
				if s.tasks[a2apb.TaskID(id)] != nil {
					t.Errorf("%s was kept", id)
				}
			}
			checkStore(t, 0, s)
		})
	}
}
