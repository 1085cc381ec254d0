package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveOnce runs `helikon serve --db db` in process, calls use with its
// address once it answers, then stops it.
func serveOnce(t *testing.T, dir, db string, use func(addr string)) {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		done <- run(t, ctx, "", "--agents", filepath.Join(dir, "agents.toml"), "serve", "--addr", addr, "--ui=false", "--db", db)
	}()
	defer func() {
		cancel()
		if r := <-done; r.code != 0 {
			t.Errorf("serve exited %d: %s", r.code, r.errOut)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/agents")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	use(addr)
}

func TestServe_WithDBARestartListsTheEarlierRuns(t *testing.T) {
	dir := sampleDir(t)
	db := filepath.Join(t.TempDir(), "helikon.db")
	var id string
	serveOnce(t, dir, db, func(addr string) {
		req, _ := http.NewRequest("POST", fmt.Sprintf("http://%s/agents/budgeting/runs", addr), strings.NewReader(`{"input":"`+question+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Session-Id", "kept")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var info struct{ ID, Status string }
		if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || info.Status != "completed" {
			t.Fatalf("run: %+v %v", info, err)
		}
		id = info.ID
	})
	serveOnce(t, dir, db, func(addr string) {
		resp, err := http.Get(fmt.Sprintf("http://%s/runs?session=kept", addr))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list struct {
			Runs []struct{ ID, Input, Status string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Runs) != 1 ||
			list.Runs[0].ID != id || list.Runs[0].Input != question || list.Runs[0].Status != "completed" {
			t.Fatalf("the restarted serve lists %+v (%v); want run %s", list.Runs, err, id)
		}
	})
}
