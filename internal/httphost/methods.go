package httphost

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// Methods dispatches one path's methods; any other method is answered 405
// in the error shape, with the Allow header. Register it under a pattern
// without a method, so that the ServeMux's plain-text 405 never answers.
type Methods map[string]http.HandlerFunc

// ServeHTTP calls the handler of r's method.
func (m Methods) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h, ok := m[r.Method]; ok {
		h(w, r)
		return
	}
	allow := strings.Join(slices.Sorted(maps.Keys(m)), ", ")
	w.Header().Set("Allow", allow)
	Write(w, Errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "",
		r.Method+" is not allowed here; use "+allow))
}

// NotFound answers 404 in the error shape; register it under "/" to
// replace the ServeMux's plain-text 404.
func NotFound(w http.ResponseWriter, r *http.Request) {
	Write(w, Errorf(http.StatusNotFound, CodeNotFound, "", "no route for "+r.URL.Path))
}
