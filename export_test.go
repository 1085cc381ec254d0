package helikon

import "github.com/paigasus/helikon/internal/coredefault"

// SwapDefaultAuthorizer makes a the authorizer of contexts no option
// touched, as the governance package's init does, and returns the
// function that puts the previous one back: for the external tests of
// what a run does with governance's defaults.
func SwapDefaultAuthorizer(a Authorizer) (restore func()) {
	prev := coredefault.Authorizer
	coredefault.Authorizer = a
	return func() { coredefault.Authorizer = prev }
}

// ModelEventCost is what each event of a model response counts against
// RunConfig.MaxTurnBytes beyond its bytes.
const ModelEventCost = modelEventCost
