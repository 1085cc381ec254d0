package mcp

import (
	"os"
	"sync"
	"time"
)

// stderrTailBytes is how much of a stdio server's stderr is kept for error
// messages: enough for a stack trace's head, bounded whatever the child
// writes.
const stderrTailBytes = 4 << 10

// stderrSettle bounds how long an error path waits for a dying child's last
// words.
const stderrSettle = time.Second

// stderrTail keeps the last stderrTailBytes a child wrote to stderr, so that
// a server that dies says why. It reads its own pipe, so that it can tell
// when the child has finished writing (exec's copying goroutine cannot be
// waited for before the process is reaped).
type stderrTail struct {
	r    *os.File
	done chan struct{} // the reader saw the end of the pipe
	mu   sync.Mutex
	buf  []byte
}

// newStderrTail returns a tail reading a fresh pipe, and the pipe's write
// end to give the child; the caller closes the write end once the child
// has started (or failed to).
func newStderrTail() (*stderrTail, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	t := &stderrTail{r: r, done: make(chan struct{})}
	go t.copy()
	return t, w, nil
}

func (t *stderrTail) copy() {
	defer close(t.done)
	buf := make([]byte, 1024)
	for {
		n, err := t.r.Read(buf)
		t.keep(buf[:n])
		if err != nil {
			return
		}
	}
}

func (t *stderrTail) keep(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

// settled returns what was kept once the child has closed stderr, or after
// stderrSettle.
func (t *stderrTail) settled() string {
	if t == nil {
		return ""
	}
	select {
	case <-t.done:
	case <-time.After(stderrSettle):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// close stops the reader, after giving the child a moment to finish.
func (t *stderrTail) close() {
	if t == nil {
		return
	}
	select {
	case <-t.done:
	case <-time.After(stderrSettle):
	}
	_ = t.r.Close()
	<-t.done
}
