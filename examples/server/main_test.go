package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/server"
)

func TestServer_AnswersTheQuickstartQuestion(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	srv, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}()
	resp, err := http.Post(ts.URL+"/agents/budget-assistant/runs", "application/json",
		strings.NewReader(`{"input":"How am I doing on my dining budget this month?"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var info server.RunInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		t.Fatal(err)
	}
	want := "You have spent $312.40 on dining this month against a $250 budget, so you are $62.40 over. " +
		"Try cooking at home twice a week for the rest of the month."
	if info.Status != server.StatusCompleted || info.Result.FinalOutput != want {
		t.Fatalf("run = %+v", info)
	}
}
