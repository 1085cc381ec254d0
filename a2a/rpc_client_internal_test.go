package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRPCClient_ACancelAnsweredWithAnythingButATaskIsAProtocolError pins
// what a2a-go's client required of a tasks/cancel reply: the task. Ours
// took any event, a message included, as the cancel done.
func TestRPCClient_ACancelAnsweredWithAnythingButATaskIsAProtocolError(t *testing.T) {
	replies := map[string]string{
		"a message": `{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"sure"}]}`,
		"a task":    `{"kind":"task","id":"t","contextId":"c","status":{"state":"canceled"}}`,
	}
	for name, res := range replies {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct{ ID json.RawMessage }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, res)
		}))
		c := &rpcClient{url: ts.URL, http: http.DefaultClient, maxEvent: 1 << 20}
		err := c.cancel(context.Background(), "t")
		ts.Close()
		if want := name != "a task"; errors.Is(err, ErrProtocol) != want {
			t.Errorf("%s: error %v, want a protocol error: %v", name, err, want)
		}
	}
}
