// Package sessiontest is the conformance suite every [helikon.Session]
// backend passes before it ships.
//
// A backend's test calls [Run] with a constructor of empty sessions, or
// [RunStore] when one store holds many sessions told apart by id:
//
//	func TestConformance(t *testing.T) {
//		sessiontest.RunStore(t, func(t *testing.T, id string) helikon.Session {
//			s, err := sqlite.OpenWithoutMigrate(db, id)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite pins the contract of the Session interface: every event kind
// round-trips with its timestamp to the nanosecond, reads after a position
// are exclusive, a snapshot equals [helikon.Project] of the log, sequence
// ids are contiguous from 0, a batch is atomic, and concurrent writers lose,
// duplicate and interleave nothing. Poison cases hold every backend to
// storing what [helikon.MemorySession] stores: tool-call arguments that are
// not valid JSON ([InvalidArgs]) and NUL characters in text, byte for byte.
// [RunStore] also checks incremental loading ([sessioncache]) while another
// handle on the same log appends.
package sessiontest
