// Package governance decides which tool calls of a Helikon run may run, and
// scrubs secrets from what leaves a tool. It implements the core's two
// seams, [helikon.Authorizer] and [helikon.Redactor], with:
//
//   - permission modes ([PermissionMode]: default, accept edits, plan,
//     bypass, don't ask), tighten-only;
//   - deny rules ([DenyBash], [DenyTool], [DenyRead], [DenyEdit]), allow
//     rules ([AllowBash], …) and guard rules ([GuardRule];
//     [DestructiveGuards] are on unless removed), matched against what a
//     call does: the command line a [ShellTool] runs, parsed by a shell
//     matcher, and the files a [FileTool] touches;
//   - an opt-in guard that asks before a shell call runs a file the run
//     wrote ([WithWrittenFileGuard]);
//   - a [PermissionPolicy] for what no rule or mode decides;
//   - secret redaction of tool output ([WithExtraSecrets]).
//
// Every option is a [helikon.ContextOption]; they refine one configuration
// carried by the [helikon.RunContext], which handoff targets and sub-agents
// inherit:
//
//	rc := helikon.NewRunContext(
//		governance.WithPermissionMode(governance.PermissionAcceptEdits),
//		governance.WithDenyRules(governance.DenyBash("rm"), governance.DenyRead(".env")),
//		helikon.WithApprovalHandler(approver), // answers the asks; none: the run pauses
//	)
//
// A program that links this package (every program using the Bash or file
// tools does) gets its defaults on every run whose context sets no
// authorizer or redactor of its own: the default mode without a policy,
// the destructive guards, and redaction of the environment's secrets. See
// docs/governance.md.
package governance
