package evals

import "context"

// Sink records a finished run: every case, in dataset order, after the
// whole run is over. The sub-packages sqlitesink and parquetsink hold the
// built-in sinks, apart so that a program links only the storage it uses;
// package sinks opens either from a spec such as "sqlite:evals.db".
type Sink interface {
	Record(ctx context.Context, rep *Report) error
}
