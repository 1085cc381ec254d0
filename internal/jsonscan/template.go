package jsonscan

// Template is an input a [Document] accepted, remembered with the places of
// some of its string values (its slots), so that a next input equal to it
// but for the contents of those strings is recognised, and known to be
// valid, by comparing the bytes between the slots and scanning the slots'
// strings alone. A model stream's chunks repeat the same members around
// the one string that changes, the delta's text: the whole chunk need not
// be validated and indexed again.
//
// The next input is exactly as valid as the remembered one: the bytes
// before a slot are the same, so the slot starts a string in both; the
// scan checks the new string is well-formed, as [Document.Reset] would;
// and the bytes after it are the same again. Its members, their names and
// their values outside the slots, are the remembered ones, so a reader that
// made something of the remembered input makes the same of the next one,
// but for what it reads again from the slots.
//
// The zero Template matches nothing.
type Template struct {
	b []byte
	// slots holds the start and the end of each slot's string in b,
	// ascending; want[k] is the place of slot k in Match's out, or -1 for
	// a slot no reader reads.
	slots []int32
	want  []int8
}

// Set remembers doc's input with the string values slots (read from doc,
// at most 32) as its slots, and with every string-valued member of the root
// that none of keys names: keys must be those of the last
// [Document.Object] read of the root, which the caller made, so those
// members are ones it did not read, and their contents may change too (an
// OpenAI chunk's obfuscation padding does). It reports false, leaving the
// Template matching nothing, when a slot is not a string value of doc's
// input or the root was not read whole with keys.
func (t *Template) Set(doc *Document, keys *Keys, slots ...[]byte) bool {
	t.b, t.slots, t.want = t.b[:0], t.slots[:0], t.want[:0]
	if doc.b == nil || doc.memoKeys != keys || len(doc.memo) != len(doc.starts) || len(slots) > maxKeys {
		return false
	}
	for k, s := range slots {
		off, ok := doc.at(s)
		if !ok || s[0] != '"' {
			t.slots = t.slots[:0]
			return false
		}
		t.add(off, off+len(s), int8(k))
	}
	for m, s := range doc.starts {
		if doc.memo[m] != -1 {
			continue
		}
		i := int(s)
		j := SkipSpace(doc.b, SkipSpace(doc.b, int(doc.ends[i]))+1) // past the ':'
		if doc.b[j] == '"' {
			t.add(j, int(doc.ends[j]), -1)
		}
	}
	for k := 1; k < len(t.want); k++ {
		if t.slots[2*k] < t.slots[2*k-1] { // the same string twice
			t.slots, t.want = t.slots[:0], t.want[:0]
			return false
		}
	}
	t.b = append(t.b, doc.b...)
	return true
}

// add inserts the slot [start, end) in order.
func (t *Template) add(start, end int, want int8) {
	k := len(t.want)
	t.slots = append(t.slots, 0, 0)
	t.want = append(t.want, 0)
	for k > 0 && int(t.slots[2*k-2]) > start {
		t.slots[2*k], t.slots[2*k+1], t.want[k] = t.slots[2*k-2], t.slots[2*k-1], t.want[k-1]
		k--
	}
	t.slots[2*k], t.slots[2*k+1], t.want[k] = int32(start), int32(end), want
}

// Match reports whether b is the remembered input but for the contents of
// its slots, each still one well-formed JSON string, and stores in out, in
// the order [Template.Set] was given them, the strings b holds at the
// slots the caller named. On false, out is unspecified and the caller reads
// b as it would without the Template.
func (t *Template) Match(b []byte, out [][]byte) bool {
	if len(t.b) == 0 || len(b) > MaxDocument {
		return false
	}
	from, i := 0, 0 // where the next literal starts in t.b and in b
	for k, w := range t.want {
		// The literal up to and with the slot's opening quote.
		lit := t.b[from : t.slots[2*k]+1]
		if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != string(lit) {
			return false
		}
		start := i + len(lit) - 1
		end, _ := scanString(b, start)
		if end < 0 {
			return false
		}
		if w >= 0 {
			out[w] = b[start:end]
		}
		from, i = int(t.slots[2*k+1]), end
	}
	return string(b[i:]) == string(t.b[from:])
}
