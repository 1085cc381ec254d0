package bash

import "fmt"

// DefaultOutputLimit caps each output stream of a command.
const DefaultOutputLimit = 64 << 10

// capture is an io.Writer that keeps the first and last limit/2 bytes of
// what it is given and counts the rest, so memory stays bounded whatever
// a command prints.
type capture struct {
	head  []byte
	tail  []byte // a ring once full
	start int    // where the ring's oldest byte is
	half  int
	total int64
}

func newCapture(limit int) *capture {
	h := max(limit/2, 1)
	return &capture{half: h, head: make([]byte, 0, min(h, 4096))}
}

// Write keeps p's bytes in the head until it is full, then in the tail
// ring. It never fails.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= c.half {
		c.tail = append(c.tail[:0], p[len(p)-c.half:]...)
		c.start = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(c.tail) < c.half {
			k := min(c.half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.start:], p)
		p = p[k:]
		c.start = (c.start + k) % c.half
	}
	return n, nil
}

// String returns the output, with a marker where bytes were dropped.
func (c *capture) String() string {
	kept := int64(len(c.head) + len(c.tail))
	tail := append(append([]byte(nil), c.tail[c.start:]...), c.tail[:c.start]...)
	if kept == c.total {
		return string(c.head) + string(tail)
	}
	return fmt.Sprintf("%s\n[… %d bytes elided …]\n%s", c.head, c.total-kept, tail)
}

// Elide caps s at about limit bytes the way backends cap a stream: the
// head and tail are kept and the middle replaced with a marker. A backend
// that receives output whole (over a network) uses it.
func Elide(s string, limit int) string {
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	c := newCapture(limit)
	c.Write([]byte(s))
	return c.String()
}
