package eventclock

import (
	"testing"
	"time"
)

// TestNow_IsTheWallClockInUTCWithoutAMonotonicReading pins Now to what
// time.Now().UTC() returns: a time between two readings of the wall clock
// around it, in UTC, with no monotonic reading to compare by. A base is
// early by the gap between its two readings, at most a microsecond unless
// a loaded machine delayed all three tries; the window allows a
// millisecond.
func TestNow_IsTheWallClockInUTCWithoutAMonotonicReading(t *testing.T) {
	for range 1000 {
		before := time.Now()
		at := Now()
		after := time.Now()
		if at.Before(before.Add(-time.Millisecond)) || at.After(after.Add(time.Millisecond)) {
			t.Fatalf("Now() = %v, not within [%v, %v]", at, before, after)
		}
		if at.Location() != time.UTC {
			t.Fatalf("Now() in %v, want UTC", at.Location())
		}
		if at != at.Round(0) {
			t.Fatalf("Now() = %v carries a monotonic reading", at)
		}
	}
}

// TestNow_FollowsAStepOfTheWallClockAtItsNextBase pins how late a step of
// the wall clock shows: not while the base serves, and at once when a base
// older than RebaseAfter is read.
func TestNow_FollowsAStepOfTheWallClockAtItsNextBase(t *testing.T) {
	defer func() { wallNow = time.Now; cur.Store(nil) }()
	const step = time.Hour
	cur.Store(nil)
	Now() // a base before the step
	wallNow = func() time.Time { return time.Now().Add(step) }
	if at := Now(); at.After(time.Now().Add(step / 2)) {
		t.Fatalf("Now() = %v followed the step while its base served", at)
	}
	// Age the base past RebaseAfter: its monotonic reading moves back.
	b := *cur.Load()
	b.mono = b.mono.Add(-RebaseAfter)
	cur.Store(&b)
	if at := Now(); at.Before(time.Now().Add(step / 2)) {
		t.Fatalf("Now() = %v, a base older than RebaseAfter did not follow the step of %v", at, step)
	}
}

// TestRebase_TakesAgainABaseWhoseReadingsLieApart pins the bracket around
// a base's readings: a reading of the wall clock that comes long after
// the monotonic one before it (a processor descheduled between them) is
// taken again.
func TestRebase_TakesAgainABaseWhoseReadingsLieApart(t *testing.T) {
	defer func() { wallNow = time.Now; cur.Store(nil) }()
	calls := 0
	wallNow = func() time.Time {
		calls++
		if calls == 1 {
			time.Sleep(time.Millisecond)
		}
		return time.Now()
	}
	rebase()
	// A loaded machine may delay the next reading too: then it is taken a
	// third time, never more.
	if calls < 2 || calls > 3 {
		t.Errorf("the wall clock was read %d times, want 2 or 3: a base read a millisecond late was kept, or taken again without end", calls)
	}
}
