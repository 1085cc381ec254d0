// Package forkd is a [bash.ExecutionBackend] that runs each command in a
// fresh Firecracker microVM forked from a snapshot by a forkd controller.
//
// Experimental. The controller's REST contract this client speaks is
// written down below; it is exercised here only against a stateful fake
// of that contract, not against a live controller, and no public
// specification of forkd's API was available to check it against.
//
//	POST   /v1/sandboxes            {"snapshot": TAG}            → 201 {"id", "snapshot", "created_at"}
//	POST   /v1/sandboxes/{id}/exec  {"command", "timeout_ms"}    → 200 {"exit_code", "stdout", "stderr", "timed_out"}
//	DELETE /v1/sandboxes/{id}                                    → 204 (404: already gone)
//	GET    /v1/sandboxes                                         → 200 {"sandboxes": [{"id", "snapshot", "created_at"}]}
//
// Every request carries "Authorization: Bearer TOKEN". created_at is
// RFC 3339.
//
// Guarantees: the filesystem and syscalls are Virtualized (the command
// runs in a KVM guest); the network is None unless [WithEgressProxy]
// attests that the deployment forces guest egress through a policy proxy
// (Proxied). The attestation is the operator's: the client cannot see the
// host's network namespace rules, and only checks that the proxy answers.
//
// A fork that the controller commits but whose id the client never learns
// (a timeout after commit) leaks a VM; call [Backend.Reconcile] from a
// scheduler to reap this snapshot's VMs older than the reap age.
package forkd
