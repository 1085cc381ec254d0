package cli

import (
	"strconv"
	"strings"
)

// nameList writes names for people ("budgeting, triage"), not as a Go
// slice ("[budgeting triage]").
func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// plural writes n with noun, adding an s unless n is 1: "1 turn", "2 turns".
func plural[N int | int64](n N, noun string) string {
	s := strconv.FormatInt(int64(n), 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}
