// Package legacydecode reaches the general decoder of a stored session
// event: the path every session load took before the one-pass decoder
// (json.Unmarshal's scan of the whole payload, then reflection into wire
// structs and a second parse of each content part). Benchmarks use it as
// the baseline the one-pass decoder is measured against, in the same run.
package legacydecode

// Event decodes data into dst, which must be a *helikon.SessionEvent, as
// json.Unmarshal did before the one-pass decoder. The helikon package sets
// it when it is initialised.
var Event func(data []byte, dst any) error
