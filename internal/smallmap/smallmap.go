// Package smallmap is a string-keyed map for the few keys a run's state
// holds: the first [Inline] sit in an array, found by a scan, which costs
// one allocation where a map costs two, and no hash of a key; a map takes
// all of them over once there are more. It is not safe for concurrent use.
package smallmap

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

// CloneFunc returns every entry of e with its value converted by f, nil
// when there is none: a copy of a map whose values the caller keeps in a
// form of its own.
func CloneFunc[V, W any](e *Map[V], f func(V) W) map[string]W {
	switch {
	case e.m != nil:
		m := make(map[string]W, len(e.m))
		for k, v := range e.m {
			m[k] = f(v)
		}
		return m
	case e.n == 0:
		return nil
	}
	m := make(map[string]W, e.n)
	for _, kv := range e.kv[:e.n] {
		m[kv.key] = f(kv.v)
	}
	return m
}
