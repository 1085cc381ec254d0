package evals

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress follows a run as it goes. A [Run] calls Start once, CaseDone
// after each case (in completion order, never two at once) and Finish at
// the end.
type Progress interface {
	Start(total int)
	CaseDone(r *CaseResult, t Tally)
	Finish()
}

// NewProgress returns the progress display fit for w: a live bar (cases
// done of total, passed and failed so far, an estimate of the time left)
// when w is a terminal, one plain line per case otherwise (a CI log).
func NewProgress(w io.Writer) Progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return NewBarProgress(w)
	}
	return NewLineProgress(w)
}

// NewLineProgress returns a Progress that writes one line per case:
//
//	[3/10] case-3 passed (1.2ms)
func NewLineProgress(w io.Writer) Progress { return &lineProgress{w: w} }

type lineProgress struct {
	w     io.Writer
	total int
}

func (p *lineProgress) Start(total int) { p.total = total }

func (p *lineProgress) CaseDone(r *CaseResult, t Tally) {
	fmt.Fprintf(p.w, "[%d/%d] %s %s (%v)\n", t.Done, p.total, r.Case.ID, r.Status(), r.Duration.Round(time.Microsecond))
}

func (p *lineProgress) Finish() {}

// NewBarProgress returns a Progress drawing a live bar on w, whatever w
// is; [NewProgress] picks it for terminals.
func NewBarProgress(w io.Writer) Progress { return &barProgress{w: w} }

type barProgress struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

func (p *barProgress) Start(total int) {
	p.bar = progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription("eval"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(50*time.Millisecond),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
	)
}

func (p *barProgress) CaseDone(_ *CaseResult, t Tally) {
	p.bar.Describe(fmt.Sprintf("%d passed, %d failed", t.Passed, t.Failed))
	_ = p.bar.Add(1) // the writer's errors are the terminal's, not the run's
}

func (p *barProgress) Finish() { _ = p.bar.Finish() }
