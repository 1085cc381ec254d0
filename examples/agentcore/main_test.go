package main

import (
	"bytes"
	"cmp"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// build compiles a package the way the container image does (static,
// stripped), with the given build tags, into dir and returns the binary's
// path. Tags naming sqlite_cgo build with cgo, linked static as the
// README's cgo build is ([cgoStatic]); without cgo or a C compiler the
// caller is skipped, or fails in CI ([skipWithoutCgo]).
func build(tb testing.TB, dir, pkg, tags string) string {
	tb.Helper()
	bin := filepath.Join(dir, strings.TrimSuffix(filepath.Base(pkg), ".go")+"-"+cmp.Or(tags, "default")+".bin")
	args, env := []string{"-ldflags=-s -w", "-tags", tags}, "CGO_ENABLED=0"
	if strings.Contains(tags, "sqlite_cgo") {
		skipWithoutCgo(tb)
		args, env = []string{"-ldflags=-s -w -extldflags=-static", "-tags", tags + "," + cgoStatic}, "CGO_ENABLED=1"
	}
	cmd := exec.Command("go", append(append([]string{"build", "-trimpath"}, args...), "-o", bin, pkg)...)
	cmd.Env = append(os.Environ(), env)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// cgoStatic are the tags a static cgo build of the example adds to
// sqlite_cgo: the pure-Go resolver and user lookup (netgo, osusergo), so
// glibc's getaddrinfo and getpwuid, which need its shared libraries at run
// time, are not linked, and SQLite without loadable extensions
// (sqlite_omit_load_extension), so neither is dlopen.
const cgoStatic = "netgo,osusergo,sqlite_omit_load_extension"

// skipWithoutCgo skips tb where the go command would build without cgo:
// CGO_ENABLED=0, or no C compiler. The default build needs neither. In CI
// (CI=true, as .ci/run sets) it fails instead: CI has a C compiler, and a
// skip there would hide that the cgo build's size and start went unchecked.
func skipWithoutCgo(tb testing.TB) {
	tb.Helper()
	skip := tb.Skipf
	if os.Getenv("CI") == "true" {
		skip = tb.Fatalf
	}
	out, err := exec.Command("go", "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		tb.Fatalf("go env: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 || f[0] != "1" {
		skip("cgo is off (CGO_ENABLED=0): the sqlite_cgo build needs it")
	}
	if _, err := exec.LookPath(f[1]); err != nil {
		skip("no C compiler (%s): the sqlite_cgo build needs one", f[1])
	}
}

func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startBinary runs bin on addr and returns once /ping answers; the time
// from exec to that answer is returned too.
func startBinary(tb testing.TB, bin, addr string, args ...string) (*exec.Cmd, time.Duration) {
	tb.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", addr}, args...)...)
	cmd.Env = append(os.Environ(), "HELIKON_PROVIDER=mock")
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	deadline := t0.Add(10 * time.Second)
	for {
		resp, err := client.Get("http://" + addr + "/ping")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return cmd, time.Since(t0)
			}
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			tb.Fatalf("/ping did not answer within 10 s: %v", err)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func stop(tb testing.TB, cmd *exec.Cmd) {
	tb.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

// BenchmarkColdStartToPing measures exec-to-/ping-ready of the stripped
// static binary, in the default build, the Bedrock and SQLite one (the
// issue-41 target) on modernc's SQLite and on SQLite's C library (cgo,
// linked static), the one without SQLite and Bedrock and the
// Bedrock-only one, paired in each iteration with exec-to-exit of an empty
// Go program built the same way and with exec-to-/ping-ready of a bare
// net/http server answering /ping (the issue-41 baseline). It reports the
// medians and the ratios.
func BenchmarkColdStartToPing(b *testing.B) {
	dir := b.TempDir()
	empty := filepath.Join(dir, "empty.go")
	if err := os.WriteFile(empty, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	emptyBin := build(b, dir, empty, "")
	// The bare server is the baseline: net/http answering /ping, built the same way.
	bareDir := filepath.Join(dir, "bare")
	if err := os.MkdirAll(bareDir, 0o755); err != nil {
		b.Fatal(err)
	}
	bare := filepath.Join(bareDir, "bare.go")
	if err := os.WriteFile(bare, []byte(bareServer), 0o644); err != nil {
		b.Fatal(err)
	}
	bareBin := build(b, dir, bare, "")
	for _, tags := range []string{"", "noopenai,noanthropic,nogemini", "sqlite_cgo,noopenai,noanthropic,nogemini", "nosqlite,nobedrock", "nosqlite,noopenai,noanthropic,nogemini"} {
		b.Run(cmp.Or(tags, "default"), func(b *testing.B) {
			bin := build(b, dir, "github.com/paigasus/helikon/examples/agentcore", tags)
			var ready, bare, bareReady []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if err := exec.Command(emptyBin).Run(); err != nil {
					b.Fatal(err)
				}
				bare = append(bare, time.Since(t0))
				cmd, d := startBinary(b, bin, freeAddr(b))
				ready = append(ready, d)
				stop(b, cmd)
				cmd, d = startBinary(b, bareBin, freeAddr(b))
				bareReady = append(bareReady, d)
				stop(b, cmd)
			}
			median := func(ds []time.Duration) time.Duration {
				s := slices.Clone(ds)
				slices.Sort(s)
				return s[len(s)/2]
			}
			b.ReportMetric(float64(median(ready).Microseconds())/1000, "ms-ready-median")
			b.ReportMetric(float64(median(bare).Microseconds())/1000, "ms-empty-program-median")
			b.ReportMetric(float64(median(ready))/float64(median(bare)), "x-empty-program")
			b.ReportMetric(float64(median(bareReady).Microseconds())/1000, "ms-bare-server-median")
			b.ReportMetric(float64(median(ready))/float64(median(bareReady)), "x-bare-server")
			// After the loop: b.Loop's first call clears metrics reported before it.
			if fi, err := os.Stat(bin); err == nil {
				b.ReportMetric(float64(fi.Size())/1e6, "MB-binary")
			}
		})
	}
}

// bareServer is a net/http program answering /ping on -addr and nothing
// else: what a container start costs without the SDK.
const bareServer = `package main

import (
	"flag"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	http.HandleFunc("/ping", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{\"status\":\"Healthy\"}")) })
	_ = http.ListenAndServe(*addr, nil)
}
`

// TestCgoBuild_DockerfileAndREADMEAddTheSameTags: the image's and the
// README's cgo builds link static with the tags [build] measures
// ([cgoStatic]), so the figures the tests check are those of the binary
// they give.
func TestCgoBuild_DockerfileAndREADMEAddTheSameTags(t *testing.T) {
	for _, name := range []string{"Dockerfile", "README.md"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(b, []byte("sqlite_cgo,"))
		if i < 0 || !bytes.Contains(b, []byte("-extldflags=-static")) {
			t.Errorf("%s gives no static build with sqlite_cgo's tags", name)
			continue
		}
		line, _, _ := strings.Cut(string(b[i:]), "\n")
		for tag := range strings.SplitSeq(cgoStatic, ",") {
			if !strings.Contains(line, tag) {
				t.Errorf("%s's cgo build %q lacks the tag %s", name, line, tag)
			}
		}
	}
}
