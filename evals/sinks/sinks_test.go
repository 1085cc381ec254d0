package sinks_test

import (
	"errors"
	"testing"

	"github.com/paigasus/helikon/evals/parquetsink"
	"github.com/paigasus/helikon/evals/sinks"
	"github.com/paigasus/helikon/evals/sqlitesink"
)

func TestOpen_BySpec(t *testing.T) {
	s, err := sinks.Open("sqlite:out/evals.db")
	if sq, ok := s.(*sqlitesink.Sink); err != nil || !ok || sq.Path() != "out/evals.db" {
		t.Errorf("sqlite spec: %T %v", s, err)
	}
	s, err = sinks.Open("parquet:out")
	if _, ok := s.(*parquetsink.Sink); err != nil || !ok {
		t.Errorf("parquet spec: %T %v", s, err)
	}
	if _, err := sinks.Open("csv:out"); !errors.Is(err, sinks.ErrUnknownSink) {
		t.Errorf("unknown scheme: %v", err)
	}
	for _, bad := range []string{"", "sqlite", "sqlite:", "evals.db"} {
		if _, err := sinks.Open(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
