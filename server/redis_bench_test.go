package server_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
	"github.com/paigasus/helikon/server"
)

// sseRuns streams n SSE runs of the greeter through url, conc at a time,
// each read to its end, and reports how many frames came back.
func sseRuns(b *testing.B, client *http.Client, url string, n, conc int) int64 {
	var frames atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				resp, err := client.Post(url, "application/json", strings.NewReader(`{"input":"hi"}`))
				if err != nil {
					b.Error(err)
					return
				}
				frames.Add(int64(countFrames(b, resp)))
			}
		})
	}
	wg.Wait()
	return frames.Load()
}

// BenchmarkRedisLogVsMemory streams 1,000 SSE runs (32 clients at a time)
// through a server on the in-memory log and through one on the Redis log
// within every iteration, alternating which goes first (benchpair), and
// reports each one's runs/s and the Redis log's throughput as a fraction
// of the memory log's (x-memory-throughput; the goal is at least 0.5).
func BenchmarkRedisLogVsMemory(b *testing.B) {
	const runs, conc = 1000, 32
	agent := newAgent(b, "greeter", 0)
	_, mem := start(b, []helikon.Agent{agent}, server.WithRetention(server.DefaultRetention, 2*runs))
	_, red := start(b, []helikon.Agent{agent}, server.WithEventLog(redisLog(b, "helikon-bench:"+uuid.NewString()[:8]+":")),
		server.WithRetention(server.DefaultRetention, 2*runs))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}}
	perRun := int64(len(greeterEvents))
	b.ReportAllocs()
	tMem, tRedis := benchpair.Run(b, "memory", func() {
		if n := sseRuns(b, client, mem.URL+"/agents/greeter/runs?stream=sse", runs, conc); n != runs*perRun {
			b.Fatalf("memory log: %d frames, want %d", n, runs*perRun)
		}
	}, "redis", func() {
		if n := sseRuns(b, client, red.URL+"/agents/greeter/runs?stream=sse", runs, conc); n != runs*perRun {
			b.Fatalf("redis log: %d frames, want %d", n, runs*perRun)
		}
	})
	memRate := float64(runs*b.N) / tMem.Seconds()
	redisRate := float64(runs*b.N) / tRedis.Seconds()
	b.ReportMetric(memRate, "runs/s-memory")
	b.ReportMetric(redisRate, "runs/s-redis")
	b.ReportMetric(redisRate/memRate, "x-memory-throughput")
}
