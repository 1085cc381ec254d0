package helikon

import "encoding/json"

// Projection is a session log projected to messages ([Project]) and kept,
// so that events appended later fold in without replaying the log (package
// session/sessioncache keeps one per session; a backend's snapshot
// restores one with [NewProjection]).
//
// The zero Projection is that of an empty log. A Projection is not safe
// for concurrent use, but the slices [Projection.Items] returns are: later
// folds never change what an earlier Items call returned.
type Projection struct {
	items  []Item
	frozen int        // items[:frozen] were handed out by Items
	next   SequenceID // the position after the last event folded
}

// NewProjection returns the projection of a log whose events up to and
// including seq project to items (nil items and [Beginning] for an empty
// log). It keeps items, which the caller must not change afterwards.
func NewProjection(items []Item, seq SequenceID) *Projection {
	return &Projection{items: items, frozen: len(items), next: seq + 1}
}

// Apply folds events, which must follow the last event folded so far in
// the log's order, and records the last one's Seq as the position the
// projection is at.
func (p *Projection) Apply(events ...SessionEvent) {
	if len(events) == 0 {
		return
	}
	p.items, p.frozen = fold(p.items, p.frozen, events)
	p.next = events[len(events)-1].Seq + 1
}

// Items returns the messages the log projects to. The slice and its items
// are shared: treat them as read-only (appending to the slice is safe, its
// capacity is its length).
func (p *Projection) Items() []Item {
	p.frozen = len(p.items)
	return p.items[:len(p.items):len(p.items)]
}

// Seq returns the position of the last event folded, or [Beginning].
func (p *Projection) Seq() SequenceID { return p.next - 1 }

type projectionWire struct {
	Seq   SequenceID `json:"seq"`
	Items []Item     `json:"items"`
}

// MarshalJSON encodes the projection as {"seq": …, "items": […]}, a
// backend's snapshot.
func (p *Projection) MarshalJSON() ([]byte, error) {
	items := p.items
	if items == nil {
		items = []Item{}
	}
	return json.Marshal(projectionWire{Seq: p.Seq(), Items: items})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (p *Projection) UnmarshalJSON(data []byte) error {
	var w projectionWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Projection{items: w.Items, frozen: len(w.Items), next: w.Seq + 1}
	return nil
}
