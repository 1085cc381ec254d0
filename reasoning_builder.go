package helikon

import "strings"

// ReasoningBuilder gathers a model turn's [ReasoningDelta] events into its
// reasoning parts, as [ReasoningDelta.AppendTo] does, in time and memory
// linear in their size: a reasoning model streams its thinking in
// thousands of small deltas, and extending a part's strings once per delta
// copies the part each time. The zero value is ready to use; like a
// [strings.Builder], which it holds, it must not be copied after first use.
type ReasoningBuilder struct {
	done []ReasoningPart // the parts closed so far
	// The part still open, when open: its ID and its strings so far.
	open            bool
	id              string
	text, sig, data strings.Builder
}

// Add adds e: it extends the open part, or opens one when there is none,
// when the open part is complete (it has a Signature or Data), or when e
// belongs to another reasoning item (its ID).
func (b *ReasoningBuilder) Add(e ReasoningDelta) {
	if !b.open || b.sig.Len() > 0 || b.data.Len() > 0 || (e.ID != "" && e.ID != b.id) {
		b.close()
		b.open, b.id = true, e.ID
	}
	b.text.WriteString(e.Text)
	b.sig.WriteString(e.Signature)
	b.data.WriteString(e.Data)
}

// close moves the open part, if any, to the closed ones. The builders
// start afresh: the strings the part holds keep the bytes they wrote.
func (b *ReasoningBuilder) close() {
	if !b.open {
		return
	}
	b.done = append(b.done, b.current())
	b.text, b.sig, b.data = strings.Builder{}, strings.Builder{}, strings.Builder{}
	b.open, b.id = false, ""
}

func (b *ReasoningBuilder) current() ReasoningPart {
	return ReasoningPart{Text: b.text.String(), Signature: b.sig.String(), Data: b.data.String(), ID: b.id}
}

// Len returns the number of parts gathered so far, the open one included.
func (b *ReasoningBuilder) Len() int {
	if b.open {
		return len(b.done) + 1
	}
	return len(b.done)
}

// Parts returns the parts gathered so far, in a slice of their own (nil
// when there are none). The builder may go on: a later delta extends the
// last part as if Parts had not been called, and the slice keeps what it
// held.
func (b *ReasoningBuilder) Parts() []ReasoningPart {
	if b.Len() == 0 {
		return nil
	}
	parts := make([]ReasoningPart, len(b.done), b.Len())
	copy(parts, b.done)
	if b.open {
		parts = append(parts, b.current())
	}
	return parts
}

// Reset empties the builder for the next turn.
func (b *ReasoningBuilder) Reset() {
	clear(b.done)
	b.done = b.done[:0]
	b.text, b.sig, b.data = strings.Builder{}, strings.Builder{}, strings.Builder{}
	b.open, b.id = false, ""
}
