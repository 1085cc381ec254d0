package record

import (
	"github.com/paigasus/helikon"
	// governance installs the core's default redactor, which a recording
	// must not go without.
	_ "github.com/paigasus/helikon/governance"
)

// defaultRedactor is the redactor of a run context that sets none: the
// governance package's, which masks the process environment's
// secret-named variables and the values of secret-named keys.
func defaultRedactor() Redactor { return helikon.NewRunContext().Redactor() }
