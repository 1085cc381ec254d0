// Command loadtest drives N concurrent streaming runs through the agent
// server on loopback and reports runs/s, time to first event (p50, p99),
// the server's peak RSS and its peak goroutine count.
//
//	go run ./server/internal/loadtest -n 10000
//
// The server runs in a child process (this binary re-executed with
// -serve), so the figures are the server's alone, not the load
// generator's. Its agent streams -deltas token deltas on the scripted mock
// model, -delay apart, so the runs overlap; the report gives the peak
// number of streams that were open at once.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
)

func main() {
	n := flag.Int("n", 10000, "concurrent streaming runs")
	deltas := flag.Int("deltas", 20, "token deltas per run")
	delay := flag.Duration("delay", 250*time.Millisecond, "model delay before each event")
	dials := flag.Int("dials", 256, "connections being opened at once (ramp)")
	serve := flag.Bool("serve", false, "run as the server child (internal)")
	flag.Parse()
	raiseFileLimit()
	if *serve {
		if err := runServer(*deltas, *delay, *n); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := drive(*n, *deltas, *delay, *dials); err != nil {
		log.Fatal(err)
	}
}

// repeatModel streams the same deltas for every invocation.
type repeatModel struct {
	script mock.Script
	delay  time.Duration
}

func (m repeatModel) Invoke(ctx context.Context, req *helikon.ModelRequest) iter.Seq2[helikon.ModelEvent, error] {
	return mock.New([]mock.Script{m.script}, mock.WithDelay(m.delay)).Invoke(ctx, req)
}

func (m repeatModel) Capabilities() helikon.ModelCapabilities { return mock.New(nil).Capabilities() }

// runServer is the child: the server on a loopback port it prints, plus
// /debug/goroutines, until stdin closes or it is interrupted.
func runServer(deltas int, delay time.Duration, n int) error {
	parts := make([]string, deltas)
	for i := range parts {
		parts[i] = "token" + strconv.Itoa(i) + " "
	}
	agent, err := helikon.NewAgent("load", repeatModel{script: mock.Deltas(parts...), delay: delay})
	if err != nil {
		return err
	}
	srv, err := server.New([]helikon.Agent{agent},
		server.WithLimits(server.Limits{MaxConcurrentRuns: 2 * n}),
		server.WithRetention(time.Minute, n))
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/goroutines", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, runtime.NumGoroutine())
	})
	mux.Handle("/", srv.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // the parent closes stdin to stop us
		stop()
	}()
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	_ = hs.Shutdown(sctx)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drive starts the child, runs the load and prints the report.
func drive(n, deltas int, delay time.Duration, dials int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self, "-serve", "-n", strconv.Itoa(n), "-deltas", strconv.Itoa(deltas), "-delay", delay.String())
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return err
	}
	if err := child.Start(); err != nil {
		return err
	}
	defer func() {
		stdin.Close()
		_ = child.Wait()
	}()
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("child address: %w", err)
	}
	base := "http://" + strings.TrimSpace(addr)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxIdleConns: n, IdleConnTimeout: time.Minute}}
	stopSampling := make(chan struct{})
	var peakG atomic.Int64
	var sampler sync.WaitGroup
	sampler.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if g := goroutines(client, base); g > peakG.Load() {
				peakG.Store(g)
			}
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	})

	var open, peakOpen atomic.Int64
	ttfe := make([]time.Duration, n)
	failures := make([]error, n)
	events := deltas + 4 // run_started, turn_started, deltas, message_output, run_completed
	ramp := make(chan struct{}, dials)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			ramp <- struct{}{}
			t0 := time.Now()
			resp, err := client.Post(base+"/agents/load/runs?stream=sse", "application/json", strings.NewReader(`{"input":"go"}`))
			<-ramp
			if err != nil {
				failures[i] = err
				return
			}
			defer resp.Body.Close()
			if now := open.Add(1); now > peakOpen.Load() {
				peakOpen.Store(now) // a racy max is close enough for a peak
			}
			defer open.Add(-1)
			sc := bufio.NewScanner(resp.Body)
			got := 0
			for sc.Scan() {
				if len(sc.Bytes()) == 0 {
					if got == 0 {
						ttfe[i] = time.Since(t0)
					}
					got++
				}
			}
			if got != events {
				failures[i] = fmt.Errorf("run got %d events, want %d (%v)", got, events, sc.Err())
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	close(stopSampling)
	sampler.Wait()
	rss := peakRSS(child.Process.Pid)

	var errs []error
	var firsts []time.Duration
	for i, err := range failures {
		if err != nil {
			errs = append(errs, err)
		} else {
			firsts = append(firsts, ttfe[i])
		}
	}
	slices.Sort(firsts)
	ok := len(firsts)
	fmt.Printf("runs: %d ok, %d failed, %d events each (%d deltas %v apart), %d CPUs\n", ok, len(errs), events, deltas, delay, runtime.NumCPU())
	fmt.Printf("wall: %v, throughput: %.0f runs/s, %.0f events/s\n", wall.Round(time.Millisecond), float64(ok)/wall.Seconds(), float64(ok*events)/wall.Seconds())
	if ok > 0 {
		fmt.Printf("time to first event: p50 %v, p99 %v, max %v\n", pct(firsts, 50), pct(firsts, 99), firsts[ok-1])
	}
	fmt.Printf("peak concurrent streams: %d\n", peakOpen.Load())
	fmt.Printf("server: peak RSS %.1f MiB, peak goroutines %d\n", float64(rss)/(1<<20), peakG.Load())
	for _, err := range errs[:min(len(errs), 5)] {
		fmt.Println("error:", err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d runs failed", len(errs))
	}
	return nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Round(10 * time.Microsecond)
}

func goroutines(client *http.Client, base string) int64 {
	resp, err := client.Get(base + "/debug/goroutines")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var n int64
	_ = json.NewDecoder(resp.Body).Decode(&n)
	return n
}

// peakRSS reads the child's high-water resident set (VmHWM) from /proc.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
