package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
)

// reloadDebounce is how long the sidecar's directory must be quiet before
// a change is reloaded: editors save in several writes.
const reloadDebounce = 300 * time.Millisecond

const replHelp = `/help          this help
/agents        list the agents (* marks the current one)
/agent NAME    switch to agent NAME (the conversation is kept)
/reset         forget the conversation
/history       show the conversation
/usage         tokens used this session
/reload        reload the sidecar now
/quit          leave (Ctrl-D too); Ctrl-C cancels the current turn`

func newReplCommand(o *options) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "repl [--agent NAME]",
		Short: "Chat with the sidecar's agents, reloading agents.toml when it changes",
		Long: `repl is an interactive chat with one sidecar agent at a time (default: the
alphabetically first). Answers stream as they arrive; tool calls and handoffs
show as one line each. The conversation is kept across turns. Line editing
and history work as in a shell. The sidecar's directory is watched: a saved
change is reloaded after 300 ms of quiet and used from the next turn; a
broken save prints its error and keeps the last good definitions. A call
the agent's ask list names waits for your y on the terminal. Ctrl-C
cancels the turn in progress, not the repl. Type /help for the commands.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			name, err := pickAgent(f, agent)
			if err != nil {
				return err
			}
			r := &repl{o: o, agent: name}
			r.defs.Store(f)
			return r.run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to start with (default: the alphabetically first)")
	return cmd
}

// repl is one interactive session.
type repl struct {
	o       *options
	defs    atomic.Pointer[sidecar.File]
	agent   string
	history []helikon.Item
	usage   helikon.Usage
	turns   int

	rl  *readline.Instance
	con *console
	// mu guards agent, which the watcher reads, and cancelTurn, which
	// cancels the turn in progress (nil between turns).
	mu         sync.Mutex
	cancelTurn context.CancelFunc
}

func (r *repl) run(ctx context.Context) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	cfg := &readline.Config{
		Prompt:          r.prompt(),
		HistoryFile:     historyFile(),
		InterruptPrompt: "^C",
		EOFPrompt:       "/quit",
		Stdout:          r.o.io.Out,
		Stderr:          r.o.io.Err,
	}
	// The line editor watches no context; it reads through a stdin that
	// can be cancelled, so that when the repl's context ends (SIGTERM) the
	// read in progress ends as at Ctrl-D and the editor can close. The
	// goroutine blocked on the terminal then stays until the process exits.
	stdin := readline.NewCancelableStdin(r.o.io.In)
	defer stdin.Close()
	cfg.Stdin = stdin
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return fmt.Errorf("start the line editor: %w", err)
	}
	defer rl.Close()
	defer context.AfterFunc(ctx, func() { stdin.Close() })()
	r.rl = rl
	r.con = &console{out: r.o.io.Out, editor: rl.Stdout()}

	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Ctrl-C outside raw mode (while a turn runs) arrives as SIGINT: it
	// cancels the turn, never the repl.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
				r.mu.Lock()
				if r.cancelTurn != nil {
					r.cancelTurn()
				}
				r.mu.Unlock()
			}
		}
	})
	if err := r.watch(ctx, &wg); err != nil {
		r.say("helikon: hot reload is off: %v", err)
	}

	r.say("helikon repl: agent %s (%s). /help for commands, Ctrl-D to quit.", r.agent, r.defs.Load().Path)
	for {
		line, err := r.readLine()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "/") {
			if quit := r.command(line); quit {
				return nil
			}
			continue
		}
		r.turn(ctx, line)
		if ctx.Err() != nil {
			return nil
		}
	}
}

func (r *repl) prompt() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.agent + "> "
}

// setAgent switches the current agent; the watcher reads it concurrently.
func (r *repl) setAgent(name string) {
	r.mu.Lock()
	r.agent = name
	r.mu.Unlock()
}

// say prints a line from the main goroutine (see [console]).
func (r *repl) say(format string, args ...any) { r.con.say(format, args...) }

// turn runs one question against a fresh agent built from the definitions
// current now; a reload during the turn applies from the next one. A call
// that needs approval is asked about on the terminal.
func (r *repl) turn(ctx context.Context, q string) {
	defs := r.defs.Load()
	build := func(name string) (helikon.Agent, error) { return newBuilder(defs, "").agent(name) }
	agent, err := build(strings.TrimSuffix(r.prompt(), "> "))
	if err != nil {
		r.say("error: %v", err)
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	r.mu.Lock()
	r.cancelTurn = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.cancelTurn = nil
		r.mu.Unlock()
		cancel()
	}()

	input := append(append([]helikon.Item(nil), r.history...), helikon.UserText(q)...)
	var items []helikon.Item
	p := &printer{out: r.con, info: r.con}
	show := func(events iter.Seq[helikon.Event]) ending {
		return p.stream(func(yield func(helikon.Event) bool) {
			for ev := range events {
				switch e := ev.(type) {
				case helikon.MessageOutput:
					items = append(items, e.Item)
				case helikon.ToolCallItem:
					items = append(items, e.Item)
				case helikon.ToolOutputItem:
					items = append(items, e.Item)
				case helikon.HandoffItem:
					r.setAgent(e.To)
				}
				if !yield(ev) {
					return
				}
			}
		})
	}
	rc := runContext(defs, "default")
	end := drive(ctx, rc, agent.Run(ctx, rc, input), show, build, askOnTerminal(r.say, r.ask))
	r.usage = r.usage.Add(p.usage)
	r.rl.SetPrompt(r.prompt())
	switch {
	case errors.Is(end.err, errDeclined) || errors.Is(end.err, helikon.ErrCancelled) || (end.err != nil && ctx.Err() != nil):
		r.say("(cancelled)")
	case end.err != nil:
		r.say("error: %v", end.err)
	case end.completed:
		r.turns++
		r.history = append(input, items...)
	}
}

// readLine reads a line in the line editor, marking the console as editing
// meanwhile (see [console]).
func (r *repl) readLine() (string, error) {
	r.con.setEditing(true)
	defer r.con.setEditing(false)
	return r.rl.Readline()
}

// ask reads the answer to an approval question after prompt, then puts the
// agent's prompt back.
func (r *repl) ask(prompt string) (string, error) {
	r.rl.SetPrompt(prompt)
	defer r.rl.SetPrompt(r.prompt())
	return r.readLine()
}

// command runs a slash command and reports whether the repl should end.
func (r *repl) command(line string) bool {
	cmd, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	f := r.defs.Load()
	switch cmd {
	case "/help":
		r.say("%s", replHelp)
	case "/agents":
		for _, n := range f.AgentNames() {
			mark := " "
			if n == r.agent {
				mark = "*"
			}
			r.say("%s %s  %s", mark, n, f.Agents[n].Description)
		}
	case "/agent":
		if _, ok := f.Agents[arg]; !ok {
			r.say("no agent %q; the agents are %s", arg, nameList(f.AgentNames()))
			break
		}
		r.setAgent(arg)
		r.rl.SetPrompt(r.prompt())
		r.say("now talking to %s", arg)
	case "/reset":
		r.history, r.usage, r.turns = nil, helikon.Usage{}, 0
		r.say("conversation cleared")
	case "/history":
		for _, it := range r.history {
			if t := it.Text(); t != "" {
				r.say("%s: %s", it.Role, clip(t))
			}
		}
	case "/usage":
		r.say("%s, %s, %s", plural(r.turns, "turn"), plural(r.usage.InputTokens, "input token"), plural(r.usage.OutputTokens, "output token"))
	case "/reload":
		r.reload(r.say)
	case "/quit", "/exit":
		return true
	default:
		r.say("unknown command %s; /help lists them", cmd)
	}
	return false
}

// reload loads the sidecar again, keeping the last good definitions when
// the new ones do not load, and tells the outcome through say.
func (r *repl) reload(say func(format string, args ...any)) {
	f, err := sidecar.Load(r.o.agents)
	if err != nil {
		say("reload failed, keeping the last good definitions:\n%v", err)
		return
	}
	r.mu.Lock()
	agent := r.agent
	r.mu.Unlock()
	if _, ok := f.Agents[agent]; !ok {
		say("reload failed, keeping the last good definitions: agent %s is gone (the agents are %s)", agent, nameList(f.AgentNames()))
		return
	}
	r.defs.Store(f)
	say("reloaded %s (%d agents)", f.Path, len(f.Agents))
}

func historyFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir = filepath.Join(dir, "helikon")
	if os.MkdirAll(dir, 0o700) != nil {
		return ""
	}
	return filepath.Join(dir, "repl_history")
}
