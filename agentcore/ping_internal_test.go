package agentcore

import (
	"testing"
	"time"
)

func TestPinger_TimestampMovesOnlyOnATransition(t *testing.T) {
	now := time.Unix(1000, 0)
	p := newPinger(func() time.Time { return now })
	var r1, r2 func()
	steps := []struct {
		name   string
		do     func()
		status string
		at     int64
	}{
		{"starts healthy, stamped at construction", func() {}, StatusHealthy, 1000},
		{"a repeated ping does not restamp", func() {}, StatusHealthy, 1000},
		{"the first hold turns busy", func() { r1 = p.hold() }, StatusHealthyBusy, 1002},
		{"a second hold keeps the stamp", func() { r2 = p.hold() }, StatusHealthyBusy, 1002},
		{"releasing one of two stays busy", func() { r1() }, StatusHealthyBusy, 1002},
		{"releasing it again changes nothing", func() { r1() }, StatusHealthyBusy, 1002},
		{"the last release turns healthy", func() { r2() }, StatusHealthy, 1006},
	}
	for _, s := range steps {
		s.do()
		status, at := p.status()
		if status != s.status || at.Unix() != s.at {
			t.Errorf("%s: %s at %d; want %s at %d", s.name, status, at.Unix(), s.status, s.at)
		}
		now = now.Add(time.Second)
	}
}
