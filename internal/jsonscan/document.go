package jsonscan

import (
	"encoding/binary"
	"math/bits"
)

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
	// prev is a copy of the last object Reset accepted, and starts where
	// each of its members began (the index of the name's quote), so that a
	// next input beginning with the same members — a stream's id, model
	// and the like repeat in every chunk — is validated from the first
	// member that may differ: the bytes before it, and their index
	// entries, are those of prev.
	prev   []byte
	starts []int32
	// kept is how many of the root's members the last Reset took over
	// from prev unvalidated; memo[m], for the root's member m, is where
	// memoKeys placed its name ([Keys.index]), as the last [Document.Object]
	// read of the root found it. A member kept has the same name at the
	// same place, so its entry holds, and a read of the root with the same
	// keys passes over the members before the first that may differ
	// without comparing their names again: a stream's id, model and the
	// like, which are none of the names read.
	kept     int
	memoKeys *Keys
	memo     []int8
}

// Reset validates b as exactly one JSON value, whitespace around it aside,
// and indexes it. It reports false, leaving the Document unusable until the next
// successful Reset, when b is malformed, nested deeper than encoding/json's
// reads are trusted here, or larger than [MaxDocument]; the caller then falls
// back to encoding/json. b must not change while the Document reads it.
func (d *Document) Reset(b []byte) bool {
	d.b, d.root = nil, nil
	ok := d.index(b)
	if !ok {
		d.prev, d.starts, d.kept = d.prev[:0], d.starts[:0], 0
	}
	d.memo = d.memo[:min(len(d.memo), d.kept)]
	return ok
}

func (d *Document) index(b []byte) bool {
	if len(b) > MaxDocument {
		return false
	}
	if cap(d.ends) < len(b) {
		d.ends = make([]int32, len(b), max(len(b), 2*cap(d.ends)))
		d.prev, d.starts = d.prev[:0], d.starts[:0] // their index entries are gone
	}
	d.ends = d.ends[:len(b)]
	i := SkipSpace(b, 0)
	var end int
	d.kept = 0
	from := d.resumable(b)
	if from > 0 {
		d.kept = len(d.starts)
		clear(d.ends[from:])
		// prev's member began at from, after the space following its
		// comma; b may hold more space there.
		end = d.members(b, SkipSpace(b, from))
	} else {
		clear(d.ends)
		d.starts = d.starts[:0]
		if i < len(b) && b[i] == '{' {
			j := SkipSpace(b, i+1)
			if j < len(b) && b[j] == '}' {
				end = j + 1
			} else {
				end = d.members(b, j)
			}
		} else {
			end = skipValue(b, i, 0, d.ends)
			d.prev = d.prev[:0]
		}
	}
	if end < 0 || SkipSpace(b, end) != len(b) {
		return false
	}
	d.ends[i] = int32(end)
	d.b, d.root = b, b[i:end]
	if len(d.starts) > 0 {
		// prev holds b[:from] already.
		d.prev = append(d.prev[:from], b[from:]...)
	}
	return true
}

// resumable returns where to resume validating b: the start of the last
// member of prev that b's common prefix with prev reaches, or 0 for
// validating it all.
func (d *Document) resumable(b []byte) int {
	if len(d.starts) < 2 {
		return 0
	}
	n := commonPrefix(b, d.prev)
	j := len(d.starts) - 1
	for j > 0 && int(d.starts[j]) > n {
		j--
	}
	from := int(d.starts[j])
	d.starts = d.starts[:j] // members notes the member at from again
	if j == 0 {
		return 0
	}
	return from
}

// members validates, from i, the members of the root object, as
// skipContainer does, noting where each starts.
func (d *Document) members(b []byte, i int) int {
	for {
		d.starts = append(d.starts, int32(i))
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		k := i
		if i = skipString(b, i); i < 0 {
			return -1
		}
		d.ends[k] = int32(i)
		if i = SkipSpace(b, i); i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = skipValue(b, SkipSpace(b, i+1), 1, d.ends); i < 0 {
			return -1
		}
		if i = SkipSpace(b, i); i >= len(b) {
			return -1
		}
		switch b[i] {
		case '}':
			return i + 1
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return -1
		}
	}
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	a, b = a[:n], b[:n]
	i := 0
	// Four words at a time while they agree (a call to memequal per block
	// costs more than the block), then the first word that differs, whose
	// lowest differing bit gives the byte.
	for ; i+32 <= n; i += 32 {
		x, y := a[i:i+32:i+32], b[i:i+32:i+32]
		// ^ and | bind alike: the parentheses are needed.
		if (binary.LittleEndian.Uint64(x)^binary.LittleEndian.Uint64(y))|
			(binary.LittleEndian.Uint64(x[8:])^binary.LittleEndian.Uint64(y[8:]))|
			(binary.LittleEndian.Uint64(x[16:])^binary.LittleEndian.Uint64(y[16:]))|
			(binary.LittleEndian.Uint64(x[24:])^binary.LittleEndian.Uint64(y[24:])) != 0 {
			break
		}
	}
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
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
func (d *Document) Object(v []byte, keys *Keys, vals [][]byte) bool {
	off, ok := d.at(v)
	if !ok || v[0] != '{' {
		return false
	}
	if len(d.starts) > 0 && &v[0] == &d.root[0] {
		return d.rootObject(keys, vals)
	}
	// The value was validated whole, so its structure is known good: only
	// whitespace lies between the tokens the index does not cover.
	b := d.b
	i := SkipSpace(b, off+1)
	var seen uint32
	if b[i] == '}' {
		keys.clearUnseen(vals, seen)
		return true
	}
	for {
		kEnd := int(d.ends[i])
		j := SkipSpace(b, SkipSpace(b, kEnd)+1) // past the ':'
		vEnd := int(d.ends[j])
		if kEnd <= i || vEnd <= j || !take(keys.index(b, i+1, kEnd-1, false), b[j:vEnd], vals, &seen) {
			return false
		}
		i = SkipSpace(b, vEnd)
		if b[i] == '}' {
			keys.clearUnseen(vals, seen)
			return true
		}
		i = SkipSpace(b, i+1)
	}
}

// rootObject is [Document.Object] for the root, an object whose members
// start at d.starts, reading through d.memo.
func (d *Document) rootObject(keys *Keys, vals [][]byte) bool {
	if keys != d.memoKeys {
		d.memoKeys, d.memo = keys, d.memo[:0]
	}
	b := d.b
	var seen uint32
	for m, s := range d.starts {
		if m < len(d.memo) && d.memo[m] == -1 {
			continue // a member none of keys names
		}
		i := int(s)
		kEnd := int(d.ends[i])
		j := SkipSpace(b, SkipSpace(b, kEnd)+1) // past the ':'
		vEnd := int(d.ends[j])
		if kEnd <= i || vEnd <= j {
			return false
		}
		if m >= len(d.memo) {
			d.memo = append(d.memo, int8(keys.index(b, i+1, kEnd-1, false)))
		}
		if !take(int(d.memo[m]), b[j:vEnd], vals, &seen) {
			return false
		}
	}
	keys.clearUnseen(vals, seen)
	return true
}

// FirstElem is [FirstElem] for arr, the Document's root or a value its reads
// returned.
func (d *Document) FirstElem(arr []byte) (elem []byte, only bool) {
	off, ok := d.at(arr)
	if !ok || arr[0] != '[' {
		return nil, false
	}
	b := d.b
	i := SkipSpace(b, off+1)
	if b[i] == ']' {
		return nil, false
	}
	end := int(d.ends[i])
	if end <= i {
		return nil, false
	}
	return b[i:end], b[SkipSpace(b, end)] == ']'
}
