package argcheck

import (
	"reflect"
	"testing"
)

// BenchmarkChecker_OnePassDecode is the one-pass scan and decode of a flat
// tool call's arguments, the path every function-tool call takes.
func BenchmarkChecker_OnePassDecode(b *testing.B) {
	s, _ := SchemaFor[plainArgs]()
	c, _ := New(s, reflect.TypeFor[plainArgs]())
	data := []byte(`{"name":"Paris, France","count":42,"ratio":2.5e-1,"on":true,"size":7}`)
	var v plainArgs
	b.ReportAllocs()
	for b.Loop() {
		if errs := c.Decode(data, &v); errs != nil {
			b.Fatal(errs)
		}
	}
}
