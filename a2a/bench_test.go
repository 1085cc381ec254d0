package a2a_test

import (
	"context"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/mock"
)

// BenchmarkA2ARoundTrip sends one message/send to a local [a2a.Server]
// running an agent on the mock model, paired in the same iterations with a
// bare a2a-go server whose executor answers the same text as an artifact:
// x-bare is what serving a Helikon agent costs over the SDK alone.
func BenchmarkA2ARoundTrip(b *testing.B) {
	_, ours := serve(b, newAgent(b, replay{script: mock.Text("Invoice 42 is paid.")}))
	bare := sdkServer(b, &sdkExecutor{run: func(ctx context.Context, req *a2asrv.RequestContext, q eventqueue.Queue) error {
		if err := q.Write(ctx, a2apb.NewArtifactEvent(req, a2apb.TextPart{Text: "Invoice 42 is paid."})); err != nil {
			return err
		}
		return q.Write(ctx, final(req, a2apb.TaskStateCompleted, ""))
	}}, false)
	oc, bc := sdkClient(b, ours.URL+"/", ""), sdkClient(b, bare.URL+"/rpc", "")
	ctx := context.Background()
	send := func(c interface {
		SendMessage(context.Context, *a2apb.MessageSendParams) (a2apb.SendMessageResult, error)
	}) func() {
		return func() {
			res, err := c.SendMessage(ctx, userMessage("Is invoice 42 paid?"))
			if err != nil {
				b.Fatal(err)
			}
			if res.(*a2apb.Task).Status.State != a2apb.TaskStateCompleted {
				b.Fatal("not completed")
			}
		}
	}
	b.ReportAllocs()
	benchpair.Run(b, "bare", send(bc), "helikon", send(oc))
}
