package jsonscan

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// maxKeys is how many names a [Keys] holds: one bit each in a uint32.
const maxKeys = 32

// Keys is the set of member names an object read looks for, prepared once
// so that each member's name is compared only with the listed names of its
// length, and most names, of no listed length, with none.
type Keys struct {
	names []string
	// byLen[n], for n < 64, has bit j set when names[j] is n bytes long;
	// long has the bits of the names of 64 bytes or more.
	byLen [64]uint32
	long  uint32
	// head[j] is the first eight bytes of names[j], little-endian, zero
	// past its end: one comparison rules a name in or out.
	head [maxKeys]uint64
}

// NewKeys prepares names for [Object], [Nested] and [Document.Object],
// which store the value of names[j] at vals[j]. It reports an error for
// more than 32 names or a name listed twice.
func NewKeys(names ...string) (*Keys, error) {
	if len(names) > maxKeys {
		return nil, fmt.Errorf("jsonscan: %d keys, at most %d", len(names), maxKeys)
	}
	k := &Keys{names: names}
	for j, name := range names {
		for _, prev := range names[:j] {
			if prev == name {
				return nil, fmt.Errorf("jsonscan: key %q listed twice", name)
			}
		}
		var h [8]byte
		copy(h[:], name)
		k.head[j] = binary.LittleEndian.Uint64(h[:])
		if len(name) < len(k.byLen) {
			k.byLen[len(name)] |= 1 << j
		} else {
			k.long |= 1 << j
		}
	}
	return k, nil
}

// MustKeys is [NewKeys] for a package's fixed key sets: it panics on the
// programming error NewKeys reports, as regexp.MustCompile does.
func MustKeys(names ...string) *Keys {
	k, err := NewKeys(names...)
	if err != nil {
		panic(err)
	}
	return k
}

// Len returns how many names there are: the vals a read fills.
func (ks *Keys) Len() int { return len(ks.names) }

// index returns the place j among the names of the key b[from:to], or -1
// when it is none of them, or -2 when encoding/json could match it to a
// name without its being equal: it matches names case-insensitively, and
// after unescaping. Only a key of a name's length can equal it or fold to it
// in ASCII; any other key is fine unless an escape or a non-ASCII letter
// (the Kelvin sign folds to 'k') could spell a name — such keys never occur
// in practice. plain says the scan of the key found neither; when false,
// the key is checked here.
func (ks *Keys) index(b []byte, from, to int, plain bool) int {
	k := b[from:to]
	m := ks.long
	if len(k) < len(ks.byLen) {
		m = ks.byLen[len(k)]
	}
	if m != 0 {
		if from+8 <= len(b) {
			// The key's first word against each name's; the bytes past a
			// short key (its closing quote and on) masked off.
			w := binary.LittleEndian.Uint64(b[from:])
			if len(k) < 8 {
				w &= 1<<(8*len(k)) - 1
			}
			for c := m; c != 0; c &= c - 1 {
				j := bits.TrailingZeros32(c)
				if w == ks.head[j] && (len(k) <= 8 || string(k[8:]) == ks.names[j][8:]) {
					return j
				}
			}
			// Folding sets bit 5 of letters only, so a key that folds to
			// a name has the name's first word once bit 5 is set in both.
			const fold = 0x2020202020202020
			for c := m; c != 0; c &= c - 1 {
				j := bits.TrailingZeros32(c)
				if w|fold == ks.head[j]|fold && asciiEqualFold(k, ks.names[j]) {
					return -2
				}
			}
		} else {
			for c := m; c != 0; c &= c - 1 {
				if j := bits.TrailingZeros32(c); string(k) == ks.names[j] {
					return j
				}
			}
			for c := m; c != 0; c &= c - 1 {
				if asciiEqualFold(k, ks.names[bits.TrailingZeros32(c)]) {
					return -2
				}
			}
		}
	}
	if plain || plainASCII(k) {
		return -1
	}
	return -2
}

// take stores v at vals[j] for the place j [Keys.index] returned, noting
// j in seen, and reports false for a key seen already or one index
// rejected.
func take(j int, v []byte, vals [][]byte, seen *uint32) bool {
	switch {
	case j == -1:
		return true
	case j < 0 || *seen&(1<<j) != 0:
		return false
	}
	*seen |= 1 << j
	vals[j] = v
	return true
}

// clearUnseen sets to nil the vals of the names not in seen, so a read
// writes each of vals once and clears no more than it must.
func (ks *Keys) clearUnseen(vals [][]byte, seen uint32) {
	for c := ^seen & (uint32(1)<<len(ks.names) - 1); c != 0; c &= c - 1 {
		vals[bits.TrailingZeros32(c)] = nil
	}
}
