package helikon

// A driver keeps its run's system items and conversation one after the
// other in one array, with room for the turns to come, so that each model
// request is a view of that array instead of a copy of the whole history.
// The array is append-only: a slot is written once before any view covers
// it (the request's new items are written where the conversation will
// hold them, and the driver then appends the same items), and every view
// handed out is capped at its length, so an append by its holder copies.

// setConversation makes history followed by input the conversation, laid
// out after System in a new array with room to grow: room(n) slots for n
// items. Neither slice is written: a history shared by many runs (a
// session's cached projection) is copied once, here, and only read.
func (tc *TransitionCtx) setConversation(history, input []Item, room func(n int) int) {
	ls, lh, li := len(tc.System), len(history), len(input)
	n := ls + lh + li
	buf := make([]Item, room(n))
	copy(buf, tc.System)
	copy(buf[ls:], history)
	copy(buf[ls+lh:], input)
	tc.buf = buf
	tc.System = buf[:ls:ls]
	tc.Conversation = buf[ls:n]
}

// firstRoom is the room of a run's first layout: a few turns' worth
// beyond the items it starts with, however long its history. Most runs
// append a handful of items; one that appends more regrows by growRoom.
func firstRoom(n int) int { return n + min(n/4, 64) + 16 }

// growRoom is the room of a layout that outgrew its array: a quarter more,
// so that a long run copies its conversation a logarithmic number of times.
func growRoom(n int) int { return n + n/4 + 16 }

// extendConversation appends items to the conversation, in place while the
// array has room, else into a new array with room to grow.
func (tc *TransitionCtx) extendConversation(items []Item) {
	if len(items) == 0 {
		return
	}
	ls, lc := len(tc.System), len(tc.Conversation)
	if !tc.laidOut() || ls+lc+len(items) > len(tc.buf) {
		tc.setConversation(tc.Conversation, items, growRoom)
		return
	}
	copy(tc.buf[ls+lc:], items)
	tc.Conversation = tc.buf[ls : ls+lc+len(items)]
}

// laidOut reports whether System and Conversation lie one after the other
// at the start of the driver's array.
func (tc *TransitionCtx) laidOut() bool {
	ls, lc := len(tc.System), len(tc.Conversation)
	if tc.buf == nil || lc == 0 || ls+lc > len(tc.buf) {
		return false
	}
	return (ls == 0 || &tc.System[0] == &tc.buf[0]) && &tc.Conversation[0] == &tc.buf[ls]
}

// conversationView returns the conversation capped at its length, for a
// holder that may outlive the next append.
func (tc *TransitionCtx) conversationView() []Item {
	return tc.Conversation[:len(tc.Conversation):len(tc.Conversation)]
}

// requestMessages returns System, Conversation and appends as one slice:
// a view of the driver's array when they fit in it, else a copy. appends
// must be the items the caller appends to the conversation next.
func (tc *TransitionCtx) requestMessages(appends []Item) []Item {
	ls, lc, la := len(tc.System), len(tc.Conversation), len(appends)
	n := ls + lc + la
	if tc.laidOut() && n <= len(tc.buf) {
		copy(tc.buf[ls+lc:n], appends)
		return tc.buf[:n:n]
	}
	msgs := make([]Item, 0, n)
	msgs = append(msgs, tc.System...)
	msgs = append(msgs, tc.Conversation...)
	return append(msgs, appends...)
}
