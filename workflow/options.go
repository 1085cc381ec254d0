package workflow

// WithDescription sets what a workflow agent does, as a parent (a handoff,
// an agent tool) describes it to a model. It applies to every constructor
// of this package.
func WithDescription(d string) DescriptionOption { return DescriptionOption{d} }

// DescriptionOption is the option [WithDescription] returns.
type DescriptionOption struct{ d string }

func (DescriptionOption) applyWorkflow()              {}
func (DescriptionOption) applyGraph()                 {}
func (o DescriptionOption) applySwarm(c *swarmConfig) { c.description = o.d }
