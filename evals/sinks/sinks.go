// Package sinks opens the built-in trace sinks from a spec, the form the
// CLI's --trace flag takes: "sqlite:PATH" ([sqlitesink]) or "parquet:DIR"
// ([parquetsink]). Importing it links both; import a sink's own package
// to link only that one.
//
//	sink, err := sinks.Open("sqlite:evals.db")
//	run, err := evals.NewRun(ds, evals.WithAgentFactory(f), evals.WithSinks(sink))
package sinks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/paigasus/helikon/evals"
	"github.com/paigasus/helikon/evals/parquetsink"
	"github.com/paigasus/helikon/evals/sqlitesink"
)

// ErrUnknownSink reports a spec whose scheme names no sink.
var ErrUnknownSink = errors.New("sinks: unknown sink")

// Open returns the sink a spec names: "sqlite:PATH" or "parquet:DIR".
func Open(spec string) (evals.Sink, error) {
	scheme, target, ok := strings.Cut(spec, ":")
	if !ok || target == "" {
		return nil, fmt.Errorf("sinks: spec %q: want sqlite:PATH or parquet:DIR", spec)
	}
	switch scheme {
	case "sqlite":
		return sqlitesink.New(target)
	case "parquet":
		return parquetsink.New(target)
	}
	return nil, fmt.Errorf("%w %q in %q (want sqlite or parquet)", ErrUnknownSink, scheme, spec)
}
