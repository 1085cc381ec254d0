// Command helikon runs, chats with, evaluates and serves the agents an
// agents.toml sidecar declares. See docs/cli.md, or helikon --help.
package main

import (
	"context"
	"os"

	"github.com/paigasus/helikon/cli"
	"github.com/paigasus/helikon/cli/starlarktool"
)

func main() {
	// Script tools run in copies of this program started as workers;
	// this is where a copy becomes one, so it comes first.
	starlarktool.WorkerMain()
	// cli.Main installs the interrupt handling: the repl keeps running on
	// Ctrl-C, every other command stops.
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Stdio()))
}
