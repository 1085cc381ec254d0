package spreadtimer

import (
	"testing"
	"time"
)

// recorder is a Target that sends the clock at each Spread.
type recorder chan time.Duration

func (r recorder) Spread() { r <- clock() }

// fired returns a Timer of delay d and a channel that receives the clock
// at each Spread of its target.
func fired(d time.Duration) (*Timer, recorder) {
	calls := make(recorder, 16)
	t := new(Timer)
	t.Init(d, calls)
	return t, calls
}

func TestTimer_RunsItsFuncOnceArmedForTheDelay(t *testing.T) {
	const d = 20 * time.Millisecond
	tm, calls := fired(d)
	armed := clock()
	tm.Arm()
	at := <-calls
	if at-armed < d {
		t.Errorf("the target spread %v after Arm, before the delay of %v", at-armed, d)
	}
	select {
	case <-calls:
		t.Error("the target spread twice for one Arm")
	case <-time.After(3 * d):
	}
}

func TestTimer_DisarmedInTimeNeverRunsItsFunc(t *testing.T) {
	const d = 20 * time.Millisecond
	tm, calls := fired(d)
	tm.Arm()
	tm.Disarm()
	select {
	case <-calls:
		t.Error("a disarmed Timer spread its target")
	case <-time.After(4 * d):
	}
}

// An Arm that finds the runtime timer running from an earlier one (its
// deadline comes first) must not run the func at that deadline.
func TestTimer_AnEarlierArmsDeadlineDoesNotCutTheDelayShort(t *testing.T) {
	const d = 60 * time.Millisecond
	tm, calls := fired(d)
	tm.Arm()
	tm.Disarm()
	time.Sleep(d / 2)
	armed := clock()
	tm.Arm()
	at := <-calls
	if at-armed < d {
		t.Errorf("the target spread %v after the second Arm, before the delay of %v", at-armed, d)
	}
}

// Rounds that follow each other within the delay share the running
// runtime timer: arming it again costs no Reset.
func TestTimer_ArmsWithinTheDelayDoNotResetTheRuntimeTimer(t *testing.T) {
	tm, _ := fired(time.Hour)
	for range 100 {
		tm.Arm()
		tm.Disarm()
	}
	tm.mu.Lock()
	resets := tm.resets
	tm.mu.Unlock()
	if resets != 1 {
		t.Errorf("100 arms within the delay reset the runtime timer %d times, want 1", resets)
	}
	tm.t.Stop()
}

// A Timer nobody arms runs its runtime timer for at most one more period,
// then stops; the next Arm starts it again.
func TestTimer_StopsRunningOncePeriodPassesWithNoArm(t *testing.T) {
	const d = 10 * time.Millisecond
	tm, calls := fired(d)
	tm.Arm()
	tm.Disarm()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tm.mu.Lock()
		running := tm.running
		tm.mu.Unlock()
		if !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the runtime timer still runs 10 s after the last Arm")
		}
		time.Sleep(d)
	}
	tm.Arm()
	<-calls
}

// A Timer passed to another owner spreads the new target, and one set to
// none spreads nothing.
func TestTimer_SpreadsTheTargetSetLast(t *testing.T) {
	const d = 10 * time.Millisecond
	tm, first := fired(d)
	second := make(recorder, 16)
	tm.SetTarget(second)
	tm.Arm()
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the new target did not spread 10 s after Arm")
	}
	tm.SetTarget(nil)
	tm.Arm()
	time.Sleep(4 * d)
	select {
	case <-first:
		t.Error("the Timer spread its first target after passing on")
	case <-second:
		t.Error("a Timer with no target spread its last one")
	default:
	}
}
