//go:build !nosqlite

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/agentcore"
)

func TestAgentcoreExample_ServesTheContractWithSQLiteSessions(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "")
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, addr, filepath.Join(t.TempDir(), "s.db"), false) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	client := &http.Client{Timeout: 5 * time.Second}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/ping")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/ping never answered: %v", err)
		}
	}
	for i, want := range []string{"You said: Hello", "You said: Again"} {
		prompt := strings.TrimPrefix(want, "You said: ")
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/invocations", strings.NewReader(`{"prompt":"`+prompt+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(agentcore.SessionHeader, "0123456789abcdef0123456789abcdef-1")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got agentcore.Response
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || got.Status != "completed" || got.Output != want {
			t.Fatalf("invocation %d: %+v, %v", i, got, err)
		}
	}
}
