package redis

// layout is how a session's events are stored at its events key.
type layout int32

const (
	// layoutList stores a session as a Redis list of "<seq> <payload>"
	// items, oldest first: the default for new sessions.
	layoutList layout = iota + 1
	// layoutStream stores a session as a Redis Stream, an entry per event
	// under the ID "<seq>-1", beside a counter: the layout of every
	// version before lists, and of new sessions [WithStreamLayout].
	layoutStream
)

// other returns the layout l is not.
func (l layout) other() layout {
	if l == layoutList {
		return layoutStream
	}
	return layoutList
}

// readLayout returns the layout a read tries first: the one the session
// was last read in, else the one it creates.
func (s *Session) readLayout() layout {
	if l := layout(s.layout.Load()); l != 0 {
		return l
	}
	return s.create
}

// String returns the name the append script knows the layout by.
func (l layout) String() string {
	if l == layoutList {
		return "list"
	}
	return "stream"
}
