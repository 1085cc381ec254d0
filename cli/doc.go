// Package cli is the helikon command: its cobra command tree and the code
// that turns an agents.toml sidecar ([sidecar.File]) into running agents.
// cmd/helikon only calls [Main].
//
//	os.Exit(cli.Main(ctx, os.Args[1:], cli.Stdio()))
//
// Subcommands: run, repl, init, eval run, mcp serve and serve; see
// docs/cli.md.
package cli
