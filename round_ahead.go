package helikon

// A driver waiting for a live round's calls (executeToolsLive) has a
// processor of its own and nothing to do until a worker ends the round.
// It uses the wait to make what settling the round and the transition
// after it allocate: the results, the transition input that carries
// them, the transition's items, events and parts, and the next model
// request. Made then, their allocations overlap the calls rather than
// follow them, and the round's end reaches the next model call sooner.

// roundAhead is what a round of len(results) calls allocates after it
// ends, made while it runs. Each slice is fresh and goes to one round's
// outcome only: the transition hands them to the stream and the
// conversation, which keep them.
type roundAhead struct {
	results []ToolResult
	// in is ToolResults{results}, boxed: settle fills results in place.
	in      TransitionInput
	appends []Item
	events  []Event
	parts   []ContentPart
	// req is the next turn's model request, to be filled.
	req *ModelRequest
}

// makeRoundAhead makes the round's results and the transition's slices for
// n calls, sized as settle and afterTools size them.
func makeRoundAhead(n int) roundAhead {
	results := make([]ToolResult, n)
	return roundAhead{
		results: results,
		in:      ToolResults{Results: results},
		appends: make([]Item, 0, n),
		events:  make([]Event, 0, n+1),
		parts:   make([]ContentPart, n),
		req:     new(ModelRequest),
	}
}

// toolsOutcome returns the outcome and the parts of the transition after
// a round of n results: the ones the driver made ahead (once, then they
// are gone), else new ones.
func (tc *TransitionCtx) toolsOutcome(n int) (TransitionOutcome, []ContentPart) {
	if a := tc.ahead; a != nil {
		tc.ahead = nil
		appends, events, parts := a.appends, a.events, a.parts
		tc.spareReq = a.req
		*a = roundAhead{} // the outcome holds them now
		if len(parts) == n {
			return TransitionOutcome{Appends: appends, Events: events}, parts
		}
	}
	return TransitionOutcome{Appends: make([]Item, 0, n), Events: make([]Event, 0, n+1)}, make([]ContentPart, n)
}

// newRequest returns a request for buildRequest to fill: the one the
// driver made ahead (once), else a new one.
func (tc *TransitionCtx) newRequest() *ModelRequest {
	if r := tc.spareReq; r != nil {
		tc.spareReq = nil
		return r
	}
	return new(ModelRequest)
}
