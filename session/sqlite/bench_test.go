package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/session/sessiontest"
	"github.com/paigasus/helikon/session/sqlite"
)

func benchSession(b *testing.B, id string) *sqlite.Session {
	b.Helper()
	s, err := sqlite.OpenWithoutMigrate(openDB(b), id)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkAppendOne(b *testing.B) {
	sessiontest.BenchAppend(b, benchSession(b, "bench"), 1, nil)
}

func BenchmarkAppendBatch10(b *testing.B) {
	sessiontest.BenchAppend(b, benchSession(b, "bench"), 10, nil)
}

func BenchmarkSnapshot1000(b *testing.B) {
	sessiontest.BenchSnapshot(b, benchSession(b, "bench"), 1000)
}

func BenchmarkConcurrentWriters(b *testing.B) {
	b.Run("8-writers-one-session", func(b *testing.B) {
		s := benchSession(b, "shared")
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(int) helikon.Session { return s })
	})
	b.Run("8-writers-8-sessions", func(b *testing.B) {
		db := openDB(b)
		sessiontest.BenchConcurrentWriters(b, 8, 50, func(w int) helikon.Session {
			s, err := sqlite.OpenWithoutMigrate(db, fmt.Sprintf("writer-%d", w))
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}
