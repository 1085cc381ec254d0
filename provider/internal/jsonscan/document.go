package jsonscan

// MaxDocument is the largest input [Document.Reset] indexes. Larger events (a chunk
// carrying an image, say) are rare and go to encoding/json, so the index
// stays small however large a stream's events get.
const MaxDocument = 1 << 20

// Document is one JSON value, validated once and indexed by where each value and
// member name inside it ends, so that reading the members of nested objects
// and the elements of nested arrays costs no second scan: [Object] followed
// by [Nested] reads re-scan each nested value once per level, a Document reads
// each byte once. The zero Document is ready to use; reusing one across events
// reuses its index.
//
// A Document reads only values it handed out itself ([Document.Root] and what its
// reads returned); anything else, and any read before a successful
// [Document.Reset], reports !ok.
type Document struct {
	b []byte
	// ends[i], for each i where a value or member name of b starts, is the
	// index just past it; zero elsewhere, so a slice that is not such a
	// value is told apart.
	ends []int32
	root []byte
}

// Reset validates b as exactly one JSON value, whitespace around it aside,
// and indexes it. It reports false, leaving the Document unusable until the next
// successful Reset, when b is malformed, nested deeper than encoding/json's
// reads are trusted here, or larger than [MaxDocument]; the caller then falls
// back to encoding/json. b must not change while the Document reads it.
func (d *Document) Reset(b []byte) bool {
	d.b, d.root = nil, nil
	if len(b) > MaxDocument {
		return false
	}
	if cap(d.ends) < len(b) {
		d.ends = make([]int32, len(b), max(len(b), 2*cap(d.ends)))
	}
	d.ends = d.ends[:len(b)]
	clear(d.ends)
	i := skipSpace(b, 0)
	end := skipValue(b, i, 0, d.ends)
	if end < 0 || skipSpace(b, end) != len(b) {
		return false
	}
	d.b, d.root = b, b[i:end]
	return true
}

// Root returns the value Reset indexed, without the whitespace around it.
func (d *Document) Root() []byte { return d.root }

// at returns where v starts in the Document's input, and whether v is exactly
// one of its indexed values.
func (d *Document) at(v []byte) (int, bool) {
	off := cap(d.b) - cap(v)
	if len(v) == 0 || off < 0 || off >= len(d.b) || &d.b[off] != &v[0] {
		return 0, false
	}
	return off, int(d.ends[off]) == off+len(v)
}

// Object is [Object] for v, the Document's root or a value its reads returned,
// with the same key rules; it reports false as well when v is not an object.
func (d *Document) Object(v []byte, keys []string, vals [][]byte) bool {
	clear(vals[:len(keys)])
	off, ok := d.at(v)
	if !ok || v[0] != '{' {
		return false
	}
	// The value was validated whole, so its structure is known good: only
	// whitespace lies between the tokens the index does not cover.
	b, lens := d.b, keyLengths(keys)
	i := skipSpace(b, off+1)
	if b[i] == '}' {
		return true
	}
	for {
		kEnd := int(d.ends[i])
		j := skipSpace(b, skipSpace(b, kEnd)+1) // past the ':'
		vEnd := int(d.ends[j])
		if kEnd <= i || vEnd <= j || !take(b[i+1:kEnd-1], b[j:vEnd], keys, vals, lens) {
			return false
		}
		i = skipSpace(b, vEnd)
		if b[i] == '}' {
			return true
		}
		i = skipSpace(b, i+1)
	}
}

// FirstElem is [FirstElem] for arr, the Document's root or a value its reads
// returned.
func (d *Document) FirstElem(arr []byte) (elem []byte, only bool) {
	off, ok := d.at(arr)
	if !ok || arr[0] != '[' {
		return nil, false
	}
	b := d.b
	i := skipSpace(b, off+1)
	if b[i] == ']' {
		return nil, false
	}
	end := int(d.ends[i])
	if end <= i {
		return nil, false
	}
	return b[i:end], b[skipSpace(b, end)] == ']'
}
