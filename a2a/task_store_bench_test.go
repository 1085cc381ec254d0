package a2a

import (
	"context"
	"fmt"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
)

// BenchmarkTaskStore_SavePastTheCountBound saves one new task per
// iteration into a store at its count bound of 10,000: from a new
// principal each time while the store holds one task per principal
// (newcomer), or from the one principal holding every task (flooder).
// Either save evicts one task.
func BenchmarkTaskStore_SavePastTheCountBound(b *testing.B) {
	const n = 10_000
	for _, tt := range []struct {
		name  string
		owner func(i int) string
	}{
		{"newcomer", func(i int) string { return fmt.Sprint("p", i) }},
		{"flooder", func(int) string { return "p" }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := newTaskStore(n, 1<<40)
			save := func(i int) {
				ctx := withPrincipal(context.Background(), tt.owner(i))
				task := &a2apb.Task{ID: a2apb.TaskID(fmt.Sprint("t", i)), Status: a2apb.TaskStatus{State: a2apb.TaskStateCompleted}}
				if err := s.Save(ctx, task); err != nil {
					b.Fatal(err)
				}
			}
			for i := range n {
				save(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				save(n + i)
			}
		})
	}
}
