package agentcore

import (
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Ping statuses of the contract. The casing is the contract's.
const (
	StatusHealthy     = "Healthy"
	StatusHealthyBusy = "HealthyBusy"
)

// pinger tracks whether the container is busy and when that last changed.
// It shares nothing with the runs but one mutex held for a few
// instructions, so a stuck invocation cannot delay a health check.
type pinger struct {
	mu       sync.Mutex
	inFlight int
	changed  time.Time
	now      func() time.Time
}

func newPinger(now func() time.Time) *pinger { return &pinger{changed: now(), now: now} }

// hold marks one unit of work in flight until the returned func is called
// (once; later calls do nothing).
func (p *pinger) hold() (release func()) {
	p.mu.Lock()
	p.inFlight++
	if p.inFlight == 1 {
		p.changed = p.now()
	}
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.inFlight--
			if p.inFlight == 0 {
				p.changed = p.now()
			}
			p.mu.Unlock()
		})
	}
}

// status returns the current status and the time of its last change.
func (p *pinger) status() (string, time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inFlight > 0 {
		return StatusHealthyBusy, p.changed
	}
	return StatusHealthy, p.changed
}

// ServeHTTP answers GET /ping.
func (p *pinger) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	status, changed := p.status()
	body := make([]byte, 0, 64)
	body = append(body, `{"status":"`...)
	body = append(body, status...)
	body = append(body, `","time_of_last_update":`...)
	body = strconv.AppendInt(body, changed.Unix(), 10)
	body = append(body, '}')
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
