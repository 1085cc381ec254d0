package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/record"
)

// recordFlags are run's --record and --replay.
type recordFlags struct {
	record, replay string
	lenient, timed bool
}

func (f *recordFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.record, "record", "", "record every model call and tool output of the run to `FILE` (secrets redacted)")
	cmd.Flags().StringVar(&f.replay, "replay", "", "replay the recording `FILE` instead of calling models and tools; a request that drifted from it fails the run")
	cmd.Flags().BoolVar(&f.lenient, "replay-lenient", false, "with --replay, check only the number of model calls")
	cmd.Flags().BoolVar(&f.timed, "replay-timing", false, "with --replay, wait the recorded gaps between events")
}

// open returns what the run records to or replays from; nil when neither.
func (f *recordFlags) open() (*recordReplay, error) {
	switch {
	case f.record != "" && f.replay != "":
		return nil, fmt.Errorf("--record and --replay exclude each other")
	case (f.lenient || f.timed) && f.replay == "":
		return nil, fmt.Errorf("--replay-lenient and --replay-timing need --replay")
	case f.record != "":
		return &recordReplay{path: f.record, rec: record.New()}, nil
	case f.replay != "":
		sf, err := mock.LoadScriptFile(f.replay)
		if err != nil {
			return nil, err
		}
		var opts []record.ReplayOption
		if f.lenient {
			opts = append(opts, record.Lenient())
		}
		if f.timed {
			opts = append(opts, record.WithRecordedTiming())
		}
		rp, err := record.NewReplay(sf, opts...)
		if err != nil {
			return nil, err
		}
		return &recordReplay{path: f.replay, replay: rp}, nil
	}
	return nil, nil
}

// recordReplay wraps a builder's models and tools for --record or
// --replay. Its methods are no-ops on nil.
type recordReplay struct {
	path   string
	rec    *record.Recorder
	replay *record.Replay
}

// replayModel returns the replaying model, which stands in for every
// agent's, so a replay needs no key.
func (r *recordReplay) replayModel() (helikon.Model, bool) {
	if r == nil || r.replay == nil {
		return nil, false
	}
	return r.replay.Model(), true
}

func (r *recordReplay) wrapModel(m helikon.Model) helikon.Model {
	if r == nil || r.rec == nil {
		return m
	}
	return r.rec.Model(m)
}

func (r *recordReplay) wrapTool(t helikon.Tool) helikon.Tool {
	switch {
	case r == nil:
		return t
	case r.rec != nil:
		return r.rec.Tool(t)
	case r.replay != nil:
		return r.replay.Tool(t)
	}
	return t
}

// finish writes the recording, or checks the replay made every recorded
// call, once the run is over.
func (r *recordReplay) finish() error {
	switch {
	case r == nil:
		return nil
	case r.rec != nil:
		return r.rec.WriteFile(r.path)
	}
	if err := r.replay.Check(); err != nil {
		return failed(fmt.Errorf("%s: %w", r.path, err))
	}
	return nil
}
