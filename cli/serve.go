package cli

import (
	"fmt"
	"net"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/a2a"
	"github.com/paigasus/helikon/server"
)

func newServeCommand(o *options) *cobra.Command {
	var (
		addr    string
		ui      bool
		dbPath  string
		withA2A bool
		dataset string
	)
	cmd := &cobra.Command{
		Use:   "serve [--addr ADDR] [--ui=false] [--db FILE] [--eval-dataset FILE] [--a2a]",
		Short: "Serve every sidecar agent over HTTP with the agent server",
		Long: `serve runs the helikon agent server (package server) with every agent of
the sidecar until interrupted, with the dev web UI at /ui/ (chat with an
agent, watch its runs live, approve or reject the calls that wait for
approval; --ui=false turns it off). Each agent runs in its permission mode
from agents.toml, plan when it sets none: network callers then reach only
read_only tools. With --db FILE, sessions and the list of runs live in that
SQLite file, so serve restarted on it lists the earlier runs. The dev UI's
"Save as case" appends a completed run to the JSONL dataset that
--eval-dataset FILE (or dataset in the [eval] table) names, for helikon
eval run; without one the button says how to turn it on. With --a2a,
each agent is also an A2A agent at /a2a/NAME/ (its card at
/a2a/NAME/.well-known/agent-card.json; docs/a2a.md). See
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
			newContext := func(session helikon.Session) *helikon.RunContext {
				return runContext(f, "plan", helikon.WithSession(session))
			}
			opts := []server.Option{server.WithContextProvider(server.ContextFunc(
				func(_ *http.Request, session helikon.Session) (*helikon.RunContext, error) {
					return newContext(session), nil
				}))}
			if ui {
				opts = append(opts, server.WithDevUI())
			}
			if dataset == "" && f.Eval != nil {
				dataset = f.Eval.Dataset
			}
			if dataset != "" {
				opts = append(opts, server.WithCaseSink(datasetSink{path: dataset}))
			}
			var sessions server.SessionProvider = server.NewMemorySessions()
			if dbPath != "" {
				db, dbSessions, dbOpts, err := serveDB(cmd.Context(), dbPath)
				if err != nil {
					return err
				}
				defer db.Close()
				sessions = dbSessions
				opts = append(opts, dbOpts...)
			}
			// Listen before printing: the printed address answers at once,
			// and --addr 127.0.0.1:0 prints the port the system chose. The
			// A2A agent cards need the address too.
			var lc net.ListenConfig
			ln, err := lc.Listen(cmd.Context(), "tcp", addr)
			if err != nil {
				return err
			}
			base := "http://" + ln.Addr().String()
			if withA2A {
				mounts, closeA2A, err := a2aMounts(agents, base, sessions, newContext)
				if err != nil {
					ln.Close()
					return err
				}
				defer closeA2A()
				opts = append(opts, mounts...)
			}
			srv, err := server.New(agents, opts...)
			if err != nil {
				ln.Close()
				return err
			}
			fmt.Fprintf(o.io.Err, "helikon: serving %d agents at %s\n", len(agents), base)
			if ui {
				fmt.Fprintf(o.io.Err, "helikon: dev UI at %s/ui/\n", base)
			}
			if withA2A {
				for _, a := range agents {
					fmt.Fprintf(o.io.Err, "helikon: A2A agent %s at %s/a2a/%s/ (card: %s)\n", a.Name(), base, a.Name(), a2a.CardPath)
				}
			}
			return srv.ServeListener(cmd.Context(), ln)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "the address to listen on")
	cmd.Flags().BoolVar(&ui, "ui", true, "serve the dev web UI at /ui/")
	cmd.Flags().StringVar(&dbPath, "db", "", "keep sessions and the list of runs in this SQLite file, so a restart lists earlier runs")
	cmd.Flags().StringVar(&dataset, "eval-dataset", "", "append the runs the dev UI saves as cases to this JSONL dataset (default: dataset in [eval])")
	cmd.Flags().BoolVar(&withA2A, "a2a", false, "also serve each agent over the Agent2Agent protocol at /a2a/NAME/")
	return cmd
}

// a2aMounts serves each agent over A2A under /a2a/NAME/ of the agent
// server, its runs built as the agent server's are and its sessions kept
// where the server's are (the A2A ids are scoped apart). close stops
// their runs.
func a2aMounts(agents []helikon.Agent, base string, sessions server.SessionProvider, newContext func(helikon.Session) *helikon.RunContext) (mounts []server.Option, close func(), err error) {
	var servers []*a2a.Server
	close = func() {
		for _, s := range servers {
			s.Close()
		}
	}
	for _, a := range agents {
		prefix := "/a2a/" + a.Name()
		s, err := a2a.NewServer(a, a2a.WithURL(base+prefix+"/"), a2a.WithRunContext(newContext), a2a.WithSessions(sessions),
			a2a.WithAuthenticator(func(r *http.Request) (string, error) { return server.PrincipalOf(r.Context()).ID, nil }))
		if err != nil {
			close()
			return nil, nil, err
		}
		servers = append(servers, s)
		mounts = append(mounts, server.WithMount(prefix+"/", http.StripPrefix(prefix, s)))
	}
	return mounts, close, nil
}
