// Package redistest starts a redis-server of a test's own, for tests that
// kill Redis mid-way (the shared one at 127.0.0.1:6379 must stay up).
package redistest

import (
	"context"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon/session/sessiontest"
)

// Private starts redis-server on a free loopback port, without
// persistence, and returns its address and a kill that stops it at once
// (as kill -9 would) and waits for it. The server is killed when the test
// ends. Without redis-server on PATH the test is skipped (failed under
// CI=true).
func Private(t testing.TB) (addr string, kill func()) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		sessiontest.Unreachable(t, "redis-server is not on PATH: install it (apt-get install redis-server) to run this test")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	kill = func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	t.Cleanup(kill)
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); c.Ping(context.Background()).Err() != nil; {
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not answer within 10 s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr, kill
}
