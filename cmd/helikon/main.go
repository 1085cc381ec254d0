// Command helikon runs, chats with, evaluates and serves the agents an
// agents.toml sidecar declares. See docs/cli.md, or helikon --help.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/paigasus/helikon/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Stdio())
	stop()
	os.Exit(code)
}
