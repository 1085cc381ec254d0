package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
)

// maxQuestionBytes bounds a question read from stdin.
const maxQuestionBytes = 1 << 20

func newRunCommand(o *options) *cobra.Command {
	var agent string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run [--agent NAME] [--json] [QUESTION…]",
		Short: "Run one agent once on a question (or stdin), streaming the answer",
		Long: `run answers one question with one agent and exits: 0 when the run
completed, 1 when it failed. Without a QUESTION argument the question is read
from stdin. The answer streams to stdout; tool calls and handoffs are shown
on stderr. --json prints every run event as a JSON line instead.`,
		Example: `  helikon run --agent triage "How much did I spend in January?"
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
			if q == "" {
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
			a, err := newBuilder(f, "").agent(name)
			if err != nil {
				return err
			}
			events := a.Run(cmd.Context(), helikon.Ephemeral(), helikon.UserText(q))
			var ok bool
			if asJSON {
				ok, err = streamJSON(o.io.Out, events)
			} else {
				p := &printer{out: o.io.Out, info: o.io.Err}
				ok, err = p.stream(events)
			}
			if err != nil {
				return failed(err)
			}
			if !ok {
				return failed(fmt.Errorf("the run did not complete"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to run (default: the alphabetically first)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's events as JSON lines")
	return cmd
}

// streamJSON writes each event as a JSON line and reports whether the run
// completed; a failed run's error is in its run_failed line.
func streamJSON(w io.Writer, events func(func(helikon.Event) bool)) (bool, error) {
	enc := json.NewEncoder(w)
	completed := false
	for ev := range events {
		if err := enc.Encode(ev); err != nil {
			return false, fmt.Errorf("encode %T: %w", ev, err)
		}
		if _, ok := ev.(helikon.RunCompleted); ok {
			completed = true
		}
	}
	return completed, nil
}
