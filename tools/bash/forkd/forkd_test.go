package forkd

import (
	"context"
	"errors"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/bash/bashtest"
)

func TestBackend_ForkExecDestroy(t *testing.T) {
	f, srv := newFake(t)
	b, err := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Run(t.Context(), bash.Request{Command: "echo hi > f; cat f; echo e >&2; exit 4"})
	if err != nil {
		t.Fatal(err)
	}
	if res != (bash.Result{ExitCode: 4, Stdout: "hi\n", Stderr: "e\n"}) {
		t.Errorf("result %+v", res)
	}
	if f.count() != 0 || f.deletes != 1 {
		t.Errorf("VMs left %d, deletes %d: want the VM destroyed", f.count(), f.deletes)
	}
	res, err = b.Run(t.Context(), bash.Request{Command: "head -c 10000 /dev/zero | tr '\\0' x", OutputLimit: 100})
	if err != nil || len(res.Stdout) > 200 || !strings.Contains(res.Stdout, "elided") {
		t.Errorf("capped output: %d bytes, %v", len(res.Stdout), err)
	}
	if g := b.Guarantees(); g.Filesystem != bash.Virtualized || g.Syscalls != bash.Virtualized || g.Network != bash.None {
		t.Errorf("guarantees %+v", g)
	}
	// The Bash tool runs on it like on any backend.
	if _, err := bash.New(b); err != nil {
		t.Fatal(err)
	}
}

func TestBackend_ErrorsAreClearAndTheVMStillGoes(t *testing.T) {
	f, srv := newFake(t)
	bad, _ := New(t.Context(), srv.URL, WithBearerToken("wrong"), WithSnapshot("helikon"))
	if _, err := bad.Run(t.Context(), bash.Request{Command: "true"}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v", err)
	}
	b, _ := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"))
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	if _, err := b.Run(ctx, bash.Request{Command: "sleep 30"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
	if f.count() != 0 {
		t.Errorf("a cancelled run left %d VMs", f.count())
	}
	dead := httptestDeadURL(t)
	d, _ := New(t.Context(), dead, WithSnapshot("helikon"))
	if _, err := d.Run(t.Context(), bash.Request{Command: "true"}); err == nil {
		t.Error("a dead controller: no error")
	}
}

func TestBackend_ReconcileReapsTheLeakOfAForkWhoseAnswerWasLost(t *testing.T) {
	f, srv := newFake(t)
	f.stallFork.Store(true)
	b, err := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"), WithReapAge(time.Minute),
		WithHTTPClient(&http.Client{Timeout: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Run(t.Context(), bash.Request{Command: "true"}); err == nil {
		t.Fatal("a fork whose answer never came succeeded")
	}
	if f.count() != 1 {
		t.Fatalf("VMs %d: want the committed, leaked one", f.count())
	}
	f.stallFork.Store(false)
	f.mu.Lock()
	var leaked string
	for id := range f.vms {
		leaked = id
	}
	f.mu.Unlock()
	// The backend's clock runs two minutes ahead: the leak is past the
	// one-minute reap age.
	now := time.Now().Add(2 * time.Minute)
	b.now = func() time.Time { return now }
	young := f.add("helikon", now.Add(-time.Second))      // a run in progress: kept
	other := f.add("other-snapshot", now.Add(-time.Hour)) // another backend's: not scanned
	f.add("helikon", time.Time{})                         // no readable age: skipped
	old := f.add("helikon", now.Add(-time.Hour))
	rep, err := b.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rep.Reaped)
	want := []string{leaked, old}
	slices.Sort(want)
	if rep.Scanned != 4 || !slices.Equal(rep.Reaped, want) || rep.SkippedUnageable != 1 || len(rep.Failed) != 0 {
		t.Errorf("report %+v, want 4 scanned, %v reaped, 1 skipped", rep, want)
	}
	f.mu.Lock()
	_, youngKept := f.vms[young]
	_, otherKept := f.vms[other]
	f.mu.Unlock()
	if !youngKept || !otherKept {
		t.Errorf("young kept %v, other snapshot's kept %v: want both", youngKept, otherKept)
	}
}

func TestNew_ValidatesAndProbesTheEgressProxy(t *testing.T) {
	_, srv := newFake(t)
	for name, c := range map[string]struct {
		url  string
		opts []Option
	}{
		"no snapshot":   {srv.URL, nil},
		"bad url":       {"ftp://x", []Option{WithSnapshot("s")}},
		"zero reap age": {srv.URL, []Option{WithSnapshot("s"), WithReapAge(0)}},
		"dead proxy":    {srv.URL, []Option{WithSnapshot("s"), WithEgressProxy(strings.TrimPrefix(httptestDeadURL(t), "http://"))}},
	} {
		if _, err := New(t.Context(), c.url, c.opts...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	b, err := New(t.Context(), srv.URL, WithSnapshot("s"), WithEgressProxy(ln.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	if b.Guarantees().Network != bash.Proxied {
		t.Errorf("guarantees %+v, want Proxied", b.Guarantees())
	}
}

// httptestDeadURL returns the URL of a port nothing listens on.
func httptestDeadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

func TestBackend_Conformance(t *testing.T) {
	bashtest.Run(t, func(t *testing.T) bash.ExecutionBackend {
		_, srv := newFake(t)
		b, err := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}, bashtest.Options{})
}

func TestBackend_ControllerFailuresAreErrorsAndTheVMStillGoes(t *testing.T) {
	f, srv := newFake(t)
	b, err := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		knob    *atomic.Bool
		command string
		want    string
	}{
		{"exec answers 500", &f.failExec, "true", "500"},
		{"fork answers malformed JSON", &f.garbleFork, "true", "decode"},
		// 17 MiB of output is past the 16 MiB response cap: refused,
		// not buffered without bound.
		{"an answer past the response cap", nil, "head -c 17825792 /dev/zero | tr '\\0' x", "response past"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.knob != nil {
				c.knob.Store(true)
				defer c.knob.Store(false)
			}
			res, err := b.Run(t.Context(), bash.Request{Command: c.command})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%+v, %v; want an error with %q", res, err, c.want)
			}
			want := 0
			if c.knob == &f.garbleFork {
				// The id never reached the client: a leak only Reconcile
				// can reap (see the test above).
				want = 1
			}
			if n := f.count(); n != want {
				t.Errorf("%d VMs left, want %d", n, want)
			}
			f.mu.Lock()
			clear(f.vms)
			f.mu.Unlock()
		})
	}
}

func TestBackend_ReconcileReportsADestroyThatFailed(t *testing.T) {
	f, srv := newFake(t)
	b, err := New(t.Context(), srv.URL, WithBearerToken("tok"), WithSnapshot("helikon"), WithReapAge(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	old := f.add("helikon", time.Now().Add(-time.Hour))
	f.failDelete.Store(true)
	rep, err := b.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scanned != 1 || len(rep.Reaped) != 0 || rep.Failed[old] == nil || !strings.Contains(rep.Failed[old].Error(), "500") {
		t.Fatalf("report %+v, want %s failed with the controller's 500", rep, old)
	}
	if f.count() != 1 {
		t.Fatal("the VM is gone although its destroy failed")
	}
	// The next pass, with the controller well again, reaps it.
	f.failDelete.Store(false)
	rep, err = b.Reconcile(t.Context())
	if err != nil || !slices.Equal(rep.Reaped, []string{old}) || f.count() != 0 {
		t.Fatalf("second pass %+v, %v; %d VMs left", rep, err, f.count())
	}
}
