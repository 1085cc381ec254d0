package cli

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
	"github.com/paigasus/helikon/server"
)

func newServeCommand(o *options) *cobra.Command {
	var (
		addr string
		ui   bool
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr ADDR] [--ui=false]",
		Short: "Serve every sidecar agent over HTTP with the agent server",
		Long: `serve runs the helikon agent server (package server) with every agent of
the sidecar, each run building a fresh agent, until interrupted, with the dev
web UI at /ui/ (chat with an agent, watch its runs live; --ui=false turns
it off). See docs/server.md for its routes and docs/devui.md for the UI.`,
		Example: `  helikon serve --addr 127.0.0.1:8080`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			current := func() *sidecar.File { return f }
			agents := make([]helikon.Agent, 0, len(f.Agents))
			for _, name := range f.AgentNames() {
				if _, err := newBuilder(f, "").agent(name); err != nil {
					return err
				}
				agents = append(agents, fresh(current, name))
			}
			var opts []server.Option
			if ui {
				opts = append(opts, server.WithDevUI())
			}
			srv, err := server.New(agents, opts...)
			if err != nil {
				return err
			}
			// Listen before printing: the printed address answers at once,
			// and --addr 127.0.0.1:0 prints the port the system chose.
			var lc net.ListenConfig
			ln, err := lc.Listen(cmd.Context(), "tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.io.Err, "helikon: serving %d agents at http://%s\n", len(agents), ln.Addr())
			if ui {
				fmt.Fprintf(o.io.Err, "helikon: dev UI at http://%s/ui/\n", ln.Addr())
			}
			return srv.ServeListener(cmd.Context(), ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the address to listen on")
	cmd.Flags().BoolVar(&ui, "ui", true, "serve the dev web UI at /ui/")
	return cmd
}
