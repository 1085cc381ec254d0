package forkd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeController keeps the state of the contract in the package doc: VMs
// by id, each a directory, with commands run by a real bash in it.
type fakeController struct {
	t     *testing.T
	token string
	mu    sync.Mutex
	vms   map[string]fakeVM
	next  int
	// stallFork, when set, commits the VM and then holds the answer
	// until the request is abandoned: the leak case.
	stallFork atomic.Bool
	// garbleFork commits the VM and answers with malformed JSON.
	garbleFork atomic.Bool
	// failExec answers every exec with a 500 and runs nothing.
	failExec atomic.Bool
	// failDelete answers every destroy with a 500 and keeps the VM.
	failDelete atomic.Bool
	deletes    int
}

type fakeVM struct {
	snapshot string
	created  time.Time
	dir      string
}

func newFake(t *testing.T) (*fakeController, *httptest.Server) {
	f := &fakeController{t: t, token: "tok", vms: map[string]fakeVM{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/sandboxes", f.fork)
	mux.HandleFunc("POST /v1/sandboxes/{id}/exec", f.exec)
	mux.HandleFunc("DELETE /v1/sandboxes/{id}", f.destroy)
	mux.HandleFunc("GET /v1/sandboxes", f.list)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeController) add(snapshot string, created time.Time) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprintf("vm-%d", f.next)
	dir, err := os.MkdirTemp(f.t.TempDir(), id)
	if err != nil {
		f.t.Error(err)
	}
	f.vms[id] = fakeVM{snapshot: snapshot, created: created, dir: dir}
	return id
}

func (f *fakeController) fork(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Snapshot string `json:"snapshot"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Snapshot == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	now := time.Now()
	id := f.add(in.Snapshot, now)
	if f.stallFork.Load() {
		<-r.Context().Done()
		return
	}
	if f.garbleFork.Load() {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":"%s",`, id)
		return
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]string{"id": id, "snapshot": in.Snapshot, "created_at": now.UTC().Format(time.RFC3339Nano)})
}

func (f *fakeController) exec(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	vm, ok := f.vms[r.PathValue("id")]
	f.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":"no such sandbox"}`, http.StatusNotFound)
		return
	}
	if f.failExec.Load() {
		http.Error(w, `{"error":"guest agent unreachable"}`, http.StatusInternalServerError)
		return
	}
	var in struct {
		Command   string `json:"command"`
		TimeoutMS int64  `json:"timeout_ms"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(in.TimeoutMS)*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", in.Command)
	cmd.Dir = vm.dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	json.NewEncoder(w).Encode(map[string]any{"exit_code": code, "stdout": stdout.String(), "stderr": stderr.String(), "timed_out": ctx.Err() != nil})
}

func (f *fakeController) destroy(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := r.PathValue("id")
	if f.failDelete.Load() {
		http.Error(w, `{"error":"vmm busy"}`, http.StatusInternalServerError)
		return
	}
	if _, ok := f.vms[id]; !ok {
		http.Error(w, `{"error":"no such sandbox"}`, http.StatusNotFound)
		return
	}
	delete(f.vms, id)
	f.deletes++
	w.WriteHeader(http.StatusNoContent)
}

func (f *fakeController) list(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]string
	for id, vm := range f.vms {
		created := vm.created.UTC().Format(time.RFC3339Nano)
		if vm.created.IsZero() {
			created = "yesterday-ish"
		}
		out = append(out, map[string]string{"id": id, "snapshot": vm.snapshot, "created_at": created})
	}
	json.NewEncoder(w).Encode(map[string]any{"sandboxes": out})
}

func (f *fakeController) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.vms)
}
