package bash

// Isolation says how one axis of a command's reach is enforced.
type Isolation int

// The isolation tiers, weakest first.
const (
	// None: nothing enforces the axis; the command has the access of the
	// process that runs it.
	None Isolation = iota
	// OsKernel: a kernel mechanism enforces the axis (Landlock for files,
	// seccomp for network and syscalls); a violating operation fails with
	// an OS error.
	OsKernel
	// Virtualized: a VM boundary enforces the axis.
	Virtualized
	// Proxied: egress goes through a policy-enforcing proxy; an operator
	// attests the network rules that force it there.
	Proxied
)

// String returns the tier's name.
func (i Isolation) String() string {
	switch i {
	case OsKernel:
		return "os-kernel"
	case Virtualized:
		return "virtualized"
	case Proxied:
		return "proxied"
	}
	return "none"
}

// Guarantees says what an [ExecutionBackend] enforces on each axis, and
// the label the Bash tool shows the model.
type Guarantees struct {
	Filesystem Isolation
	Network    Isolation
	Syscalls   Isolation
	Label      string
}
