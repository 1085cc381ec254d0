package a2a

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// TestTaskStore_AccountingAndOwnerOrderHoldUnderRandomSaves saves tasks
// of many principals, new ones and growing ones, finished and not, past
// both bounds, and checks after each save that the bounds hold, that the
// bytes counted are those stored, and that the owner heaps name the
// principal holding the most.
func TestTaskStore_AccountingAndOwnerOrderHoldUnderRandomSaves(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := newTaskStore(40, 20<<10)
	for i := range 3000 {
		owner := fmt.Sprint("p", r.IntN(25))
		ctx := withPrincipal(context.Background(), owner)
		task := &a2apb.Task{ID: a2apb.TaskID(fmt.Sprint("t", r.IntN(200))), Status: a2apb.TaskStatus{State: a2apb.TaskStateWorking}}
		if r.IntN(3) == 0 {
			task.Status.State = a2apb.TaskStateCompleted
		}
		task.Metadata = map[string]any{"pad": strings.Repeat("x", r.IntN(2000))}
		if err := s.Save(ctx, task); err != nil && err != a2apb.ErrTaskNotFound {
			t.Fatal(err)
		}
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
		var most, mostBytes int64
		for name, o := range s.owners {
			if o.bytes != per[name] || int64(o.len()) != count[name] {
				t.Fatalf("save %d: %s counted %d bytes %d tasks, holds %d %d", i, name, o.bytes, o.len(), per[name], count[name])
			}
			most, mostBytes = max(most, count[name]), max(mostBytes, per[name])
		}
		if len(s.owners) != s.byCount.Len() || len(s.owners) != s.byBytes.Len() {
			t.Fatalf("save %d: %d owners, heaps of %d and %d", i, len(s.owners), s.byCount.Len(), s.byBytes.Len())
		}
		if len(s.owners) > 0 && (int64(s.byCount.os[0].len()) != most || s.byBytes.os[0].bytes != mostBytes) {
			t.Fatalf("save %d: heaps' tops hold %d tasks, %d bytes; the most are %d, %d", i, s.byCount.os[0].len(), s.byBytes.os[0].bytes, most, mostBytes)
		}
	}
}
