package sqliteindex_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/sqliteindex"
	"github.com/paigasus/helikon/session/sqlite"
)

// serve runs one server process's life on the database file at path: it
// starts a server with the index, calls use with its URL, and shuts it
// down.
func serve(t *testing.T, path string, use func(url string)) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idx, err := sqliteindex.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := helikon.NewAgent("greeter", mock.New([]mock.Script{mock.Text("hello")}))
	if err != nil {
		t.Fatal(err)
	}
	factory := server.WithAgentFactory(func(context.Context, string) (helikon.Agent, error) {
		return helikon.NewAgent("greeter", mock.New([]mock.Script{mock.Text("hello")}))
	})
	srv, err := server.New([]helikon.Agent{agent}, server.WithRunIndex(idx), factory)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer srv.Shutdown(ctx)
	use(ts.URL)
}

func getJSON[T any](t *testing.T, url string) (int, T) {
	t.Helper()
	var v T
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, v
}

func TestIndex_ARestartedServerListsTheRunsOfTheOneBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "helikon.db")
	var ids []string
	serve(t, path, func(url string) {
		for _, input := range []string{"first", "second"} {
			req, _ := http.NewRequest("POST", url+"/agents/greeter/runs", strings.NewReader(`{"input":"`+input+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Session-Id", "s-"+input)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var info server.RunInfo
			if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || info.Status != server.StatusCompleted {
				t.Fatalf("run: %+v %v", info, err)
			}
			resp.Body.Close()
			ids = append(ids, info.ID)
			time.Sleep(time.Millisecond) // distinct creation times
		}
	})
	// The next process, on the same file, with a fresh in-memory event log.
	serve(t, path, func(url string) {
		status, list := getJSON[server.RunList](t, url+"/runs")
		if status != http.StatusOK || len(list.Runs) != 2 || list.Runs[0].ID != ids[1] || list.Runs[1].ID != ids[0] ||
			list.Runs[0].Input != "second" || list.Runs[0].Status != server.StatusCompleted || list.Runs[0].Result.FinalOutput != "hello" {
			t.Fatalf("after the restart GET /runs: %d %+v", status, list.Runs)
		}
		status, info := getJSON[server.RunInfo](t, url+"/agents/greeter/runs/"+ids[0])
		if status != http.StatusOK || info.Input != "first" || info.Status != server.StatusCompleted {
			t.Fatalf("after the restart GET the first run: %d %+v", status, info)
		}
		if status, _ := getJSON[server.ErrorBody](t, url+"/agents/greeter/runs/nope"); status != http.StatusNotFound {
			t.Fatalf("an unknown run: %d", status)
		}
		// Its events went with the log of the server before: said so.
		status, gone := getJSON[server.ErrorBody](t, url+"/agents/greeter/runs/"+ids[0]+"/events")
		if status != http.StatusGone || gone.Error.Code != server.CodeEventsGone {
			t.Fatalf("after the restart the first run's events: %d %+v", status, gone)
		}
		// The sessions come from the index too.
		status, sessions := getJSON[server.SessionList](t, url+"/sessions")
		if status != http.StatusOK || len(sessions.Sessions) != 2 || sessions.Sessions[0].ID != "s-second" ||
			sessions.Sessions[0].Label != "second" || sessions.Sessions[1].ID != "s-first" {
			t.Fatalf("after the restart GET /sessions: %d %+v", status, sessions)
		}
	})
}

func TestIndex_SelectsByOwnerAgentAndSessionNewestFirst(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "i.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idx, err := sqliteindex.New(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now().UTC()
	runs := []server.RunInfo{
		{ID: "a1", Owner: "alice", Agent: "x", SessionID: "s", CreatedAt: base},
		{ID: "a2", Owner: "alice", Agent: "y", CreatedAt: base.Add(time.Second)},
		{ID: "b1", Owner: "bob", Agent: "x", SessionID: "s", CreatedAt: base.Add(2 * time.Second)},
	}
	for _, r := range runs {
		r.Status = server.StatusRunning
		if err := idx.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	done := runs[0]
	done.Status = server.StatusCompleted
	if err := idx.Put(ctx, done); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		q    server.RunQuery
		want string
	}{
		{"one owner's", server.RunQuery{Owner: "alice"}, "a2 a1"},
		{"another owner's", server.RunQuery{Owner: "bob"}, "b1"},
		{"the anonymous principal's", server.RunQuery{}, ""},
		{"all owners'", server.RunQuery{AllOwners: true}, "b1 a2 a1"},
		{"of an agent", server.RunQuery{AllOwners: true, Agent: "x"}, "b1 a1"},
		{"of a session", server.RunQuery{Owner: "alice", SessionID: "s"}, "a1"},
		{"limited", server.RunQuery{AllOwners: true, Limit: 1}, "b1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := idx.Runs(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if strings.Join(ids, " ") != tt.want {
				t.Fatalf("%v, want %s", ids, tt.want)
			}
		})
	}
	if got, err := idx.Run(ctx, "a1"); err != nil || got.Status != server.StatusCompleted {
		t.Fatalf("the updated record: %+v %v", got, err)
	}
}
