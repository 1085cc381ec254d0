package a2a

import (
	"context"
	"fmt"
	"iter"
	"strings"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
)

// ownedHandler answers a request that names another principal's task as
// for a task that does not exist, before the SDK's handler sees it. The
// SDK checks the owner through the task store only where it reads the
// task there: tasks/resubscribe joins a running execution by id alone, so
// any caller who knew a task's id received its events, and a message on
// another's running task was refused as "in progress", which told the id
// apart from an unknown one.
type ownedHandler struct {
	a2asrv.RequestHandler
	tasks *taskStore
}

// notOwned reports whether id names a task the principal on ctx may not
// see (another's, or none).
func (h ownedHandler) notOwned(ctx context.Context, id a2apb.TaskID) bool {
	return !h.tasks.owns(ctx, id)
}

func (h ownedHandler) OnCancelTask(ctx context.Context, params *a2apb.TaskIDParams) (*a2apb.Task, error) {
	if params != nil && h.notOwned(ctx, params.ID) {
		return nil, a2apb.ErrTaskNotFound
	}
	return h.RequestHandler.OnCancelTask(ctx, params)
}

func (h ownedHandler) OnResubscribeToTask(ctx context.Context, params *a2apb.TaskIDParams) iter.Seq2[a2apb.Event, error] {
	if params != nil && h.notOwned(ctx, params.ID) {
		return func(yield func(a2apb.Event, error) bool) { yield(nil, a2apb.ErrTaskNotFound) }
	}
	return h.RequestHandler.OnResubscribeToTask(ctx, params)
}

func (h ownedHandler) OnSendMessage(ctx context.Context, params *a2apb.MessageSendParams) (a2apb.SendMessageResult, error) {
	if err := checkContextID(params); err != nil {
		return nil, err
	}
	if h.othersTask(ctx, params) {
		return nil, a2apb.ErrTaskNotFound
	}
	res, err := h.RequestHandler.OnSendMessage(ctx, params)
	return res, overLimit(err)
}

func (h ownedHandler) OnSendMessageStream(ctx context.Context, params *a2apb.MessageSendParams) iter.Seq2[a2apb.Event, error] {
	if err := checkContextID(params); err != nil {
		return func(yield func(a2apb.Event, error) bool) { yield(nil, err) }
	}
	if h.othersTask(ctx, params) {
		return func(yield func(a2apb.Event, error) bool) { yield(nil, a2apb.ErrTaskNotFound) }
	}
	return func(yield func(a2apb.Event, error) bool) {
		for ev, err := range h.RequestHandler.OnSendMessageStream(ctx, params) {
			if !yield(ev, overLimit(err)) {
				return
			}
		}
	}
}

// overLimit turns the SDK's refusal of a run past [WithMaxRuns], which
// the client would read as a bare internal error, into a server error
// that says which bound. The SDK's error has no sentinel or type (a2a-go
// v0.3.3, the newest the module proxy serves: a plain fmt.Errorf in
// internal/taskexec), so its text tells it
// (TestServer_OnePrincipalCannotTakeEveryRunSlotFromTheOthers holds that
// it still does).
func overLimit(err error) error {
	switch {
	case err == nil || !strings.Contains(err.Error(), "concurrency quota exceeded"):
		return err
	case strings.Contains(err.Error(), "scope"):
		return fmt.Errorf("%w: the principal has its maximum of runs in flight; try again once one ends", a2apb.ErrServerError)
	}
	return fmt.Errorf("%w: the server has its maximum of runs in flight; try again once one ends", a2apb.ErrServerError)
}

// othersTask reports a message that names a task the caller may not see.
func (h ownedHandler) othersTask(ctx context.Context, params *a2apb.MessageSendParams) bool {
	return params != nil && params.Message != nil && params.Message.TaskID != "" && h.notOwned(ctx, params.Message.TaskID)
}
