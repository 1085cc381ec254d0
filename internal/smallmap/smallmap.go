// Package smallmap is a string-keyed map for the few keys a run's state
// holds: the first [Inline] sit in an array, found by a scan, which costs
// one allocation where a map costs two, and no hash of a key; a map takes
// all of them over once there are more. It is not safe for concurrent use.
package smallmap

import "maps"

// Inline is how many keys a [Map] holds before it makes a map.
const Inline = 4

// Map is a string-keyed map; its zero value is empty and ready to use.
type Map[V any] struct {
	n  int
	kv [Inline]entry[V]
	m  map[string]V
}

type entry[V any] struct {
	key string
	v   V
}

// Get returns the value stored under key.
func (e *Map[V]) Get(key string) (V, bool) {
	if e.m != nil {
		v, ok := e.m[key]
		return v, ok
	}
	for i := range e.n {
		if e.kv[i].key == key {
			return e.kv[i].v, true
		}
	}
	var zero V
	return zero, false
}

// Set stores v under key.
func (e *Map[V]) Set(key string, v V) {
	if e.m != nil {
		e.m[key] = v
		return
	}
	for i := range e.n {
		if e.kv[i].key == key {
			e.kv[i].v = v
			return
		}
	}
	if e.n < Inline {
		e.kv[e.n] = entry[V]{key: key, v: v}
		e.n++
		return
	}
	e.m = make(map[string]V, 2*Inline)
	for _, kv := range e.kv {
		e.m[kv.key] = kv.v
	}
	e.kv, e.n = [Inline]entry[V]{}, 0
	e.m[key] = v
}

// Clone returns a copy of every entry, nil when there is none.
func (e *Map[V]) Clone() map[string]V {
	switch {
	case e.m != nil:
		return maps.Clone(e.m)
	case e.n == 0:
		return nil
	}
	m := make(map[string]V, e.n)
	for _, kv := range e.kv[:e.n] {
		m[kv.key] = kv.v
	}
	return m
}
