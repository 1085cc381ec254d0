package jsondepth_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/jsondepth"
)

func nest(n int) string { return strings.Repeat(`{"a":[`, n) + strings.Repeat(`]}`, n) }

func TestCheck_FailsOnlyPastTheLimit(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		limit int
		deep  bool
	}{
		{"flat", `{"a":1}`, 1, false},
		{"at the limit", nest(5), 10, false},
		{"one past", nest(5), 9, true},
		{"deep arrays", strings.Repeat("[", 100000), 64, true},
		{"syntax error is left to the decoder", `{"a":`, 1, false},
		{"scalars", `"x"`, 0, false},
		{"siblings do not add up", `[[1],[2],[3]]`, 2, false},
	}
	for _, tt := range tests {
		err := jsondepth.Check([]byte(tt.body), tt.limit)
		if got := errors.Is(err, jsondepth.ErrTooDeep); got != tt.deep || (err != nil) != tt.deep {
			t.Errorf("%s: err %v, want too deep %v", tt.name, err, tt.deep)
		}
	}
}
