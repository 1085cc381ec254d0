package cli

import (
	"fmt"
	"net"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/server"
)

func newServeCommand(o *options) *cobra.Command {
	var (
		addr   string
		ui     bool
		dbPath string
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr ADDR] [--ui=false] [--db FILE]",
		Short: "Serve every sidecar agent over HTTP with the agent server",
		Long: `serve runs the helikon agent server (package server) with every agent of
the sidecar until interrupted, with the dev web UI at /ui/ (chat with an
agent, watch its runs live, approve or reject the calls that wait for
approval; --ui=false turns it off). Each agent runs in its permission mode
from agents.toml, plan when it sets none: network callers then reach only
read_only tools. With --db FILE, sessions and the list of runs live in that
SQLite file, so serve restarted on it lists the earlier runs. See
docs/server.md for its routes and docs/devui.md for the UI.`,
		Example: `  helikon serve --addr 127.0.0.1:8080`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			// Agents are built once: their mock models keep no state
			// between calls, and the server resumes a paused run on the
			// agent it started with.
			agents := make([]helikon.Agent, 0, len(f.Agents))
			b := newBuilder(f, "")
			for _, name := range f.AgentNames() {
				a, err := b.agent(name)
				if err != nil {
					return err
				}
				agents = append(agents, a)
			}
			// Every run obeys the sidecar's modes and approval lists; an
			// agent without a mode runs in plan mode, the server's default
			// for network callers. A call that needs approval pauses the
			// run until a decision arrives (the dev UI asks).
			opts := []server.Option{server.WithContextProvider(server.ContextFunc(
				func(_ *http.Request, session helikon.Session) (*helikon.RunContext, error) {
					return runContext(f, "plan", helikon.WithSession(session)), nil
				}))}
			if ui {
				opts = append(opts, server.WithDevUI())
			}
			if dbPath != "" {
				db, dbOpts, err := serveDB(cmd.Context(), dbPath)
				if err != nil {
					return err
				}
				defer db.Close()
				opts = append(opts, dbOpts...)
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
	cmd.Flags().StringVar(&dbPath, "db", "", "keep sessions and the list of runs in this SQLite file, so a restart lists earlier runs")
	return cmd
}
