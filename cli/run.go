package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/sidecar"
)

// maxQuestionBytes bounds a question read from stdin.
const maxQuestionBytes = 1 << 20

func newRunCommand(o *options) *cobra.Command {
	var agent string
	var asJSON bool
	var rf recordFlags
	cmd := &cobra.Command{
		Use:   "run [--agent NAME] [--json] [QUESTION…]",
		Short: "Run one agent once on a question (or stdin), streaming the answer",
		Long: `run answers one question with one agent and exits: 0 when the run
completed, 1 when it failed. Without a QUESTION argument the question is read
from stdin. The answer streams to stdout; tool calls and handoffs are shown
on stderr. --json prints every run event as a JSON line instead. A call the
agent's ask list names is asked about on the terminal; when stdin is not a
terminal (or held the question) it is refused, saying so, and the run goes
on without it.

--record FILE keeps every model call (request, stream, timing) and tool
output of the run in FILE, secrets redacted; --replay FILE plays it back
with no key and no tool run, failing when a request drifted from the
recording (docs/record-replay.md).`,
		Example: `  helikon run --agent triage "How much did I spend in January?"
  helikon run --record testdata/january.json "How much did I spend in January?"
  helikon run --replay testdata/january.json "How much did I spend in January?"
  echo "How much did I spend in January?" | helikon run --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := o.load()
			if err != nil {
				return err
			}
			name, err := pickAgent(f, agent)
			if err != nil {
				return err
			}
			q := strings.Join(args, " ")
			fromStdin := q == ""
			if fromStdin {
				data, err := io.ReadAll(io.LimitReader(o.io.In, maxQuestionBytes+1))
				if err != nil {
					return fmt.Errorf("read the question from stdin: %w", err)
				}
				if len(data) > maxQuestionBytes {
					return fmt.Errorf("the question on stdin is over %d bytes", maxQuestionBytes)
				}
				q = strings.TrimSpace(string(data))
			}
			if q == "" {
				return fmt.Errorf("no question: pass it as an argument or on stdin")
			}
			rr, err := rf.open()
			if err != nil {
				return err
			}
			build := func(name string) (helikon.Agent, error) {
				b := newBuilder(f, "")
				b.rr = rr
				return b.agent(name)
			}
			a, err := build(name)
			if err != nil {
				return err
			}
			ask, rc, done := o.approvals(cmd.Context(), f, fromStdin)
			defer done()
			show := func(events iter.Seq[helikon.Event]) ending { return streamJSON(o.io.Out, events) }
			if !asJSON {
				p := &printer{out: o.io.Out, info: o.io.Err}
				show = p.stream
			}
			ctx := cmd.Context()
			end := drive(ctx, rc, a.Run(ctx, rc, helikon.UserText(q)), show, build, ask)
			if err := rr.finish(); err != nil {
				return err
			}
			switch {
			case end.err != nil:
				return failed(end.err)
			case !end.completed:
				return failed(fmt.Errorf("the run did not complete"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to run (default: the alphabetically first)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's events as JSON lines")
	rf.add(cmd)
	return cmd
}

// streamJSON writes each event as a JSON line and reports how the stream
// ended; a failed run's error is in its run_failed line, not returned.
func streamJSON(w io.Writer, events iter.Seq[helikon.Event]) ending {
	enc := json.NewEncoder(w)
	var end ending
	for ev := range events {
		if err := enc.Encode(ev); err != nil {
			return ending{err: fmt.Errorf("encode %T: %w", ev, err)}
		}
		switch e := ev.(type) {
		case helikon.RunCompleted:
			end.completed = true
		case helikon.RunPaused:
			end.paused = e.State
		}
	}
	return end
}

// approvals returns how run gets a person's approval: on a terminal, the
// question is asked there (on stderr, the answer read from stdin); when
// stdin is not a terminal, or the question was read from it, a call that
// needs approval is denied with a reason saying so, and the run goes on.
// done releases the terminal.
func (o *options) approvals(ctx context.Context, f *sidecar.File, questionOnStdin bool) (asker, *helikon.RunContext, func()) {
	in, ok := o.io.In.(*os.File)
	if !ok || questionOnStdin || !term.IsTerminal(int(in.Fd())) {
		why := "stdin is not a terminal to ask on (run helikon in a terminal, or use helikon repl)"
		if questionOnStdin {
			why = "stdin held the question, so there is no terminal to ask on (pass the question as an argument)"
		}
		refuse := func(_ context.Context, pending []helikon.PendingApproval) ([]helikon.Decision, error) {
			out := make([]helikon.Decision, len(pending))
			for i, p := range pending {
				out[i] = helikon.Reject(p.ID, why)
			}
			return out, nil
		}
		return refuse, runContext(f, "default", helikon.WithApprovalHandler(refuser{why})), func() {}
	}
	// As in the repl, the line editor reads a stdin the command's context
	// cancels (an interrupt ends a question being asked).
	stdin := readline.NewCancelableStdin(in)
	stop := context.AfterFunc(ctx, func() { stdin.Close() })
	var rl *readline.Instance
	say := func(format string, args ...any) { fmt.Fprintf(o.io.Err, format+"\n", args...) }
	read := func(prompt string) (string, error) {
		if rl == nil {
			var err error
			rl, err = readline.NewEx(&readline.Config{Prompt: prompt, Stdin: stdin, Stdout: o.io.Err, Stderr: o.io.Err,
				InterruptPrompt: "^C", EOFPrompt: "(no)"})
			if err != nil {
				return "", fmt.Errorf("start the line editor: %w", err)
			}
		}
		rl.SetPrompt(prompt)
		return rl.Readline()
	}
	done := func() {
		stop()
		if rl != nil {
			rl.Close()
		}
		stdin.Close()
	}
	return askOnTerminal(say, read), runContext(f, "default"), done
}
