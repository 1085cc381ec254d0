package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paigasus/helikon/internal/initcost"
)

// startupSidecar is one agent on a mock model that answers in one text
// delta: the smallest run, so that what is timed is the start-up.
const startupSidecar = `[agents.echo]
description  = "Answers from a script"
instructions = "Answer."
model        = { provider = "mock", script = "echo.json" }
`

const startupScript = `{"default": [[{"type": "token_delta", "text": "Hello."}, {"type": "finish", "reason": "stop"}]]}`

// BenchmarkRun_VsEmptyProgram times `helikon run hi` on a mock model, and
// a program that links the command's dependencies and runs none of our
// code (its "floor"), each paired with an empty Go program in the same
// loop — which goes first alternates — and reports the medians of each
// one's CPU time (the child's user+system, steadier than wall time on a
// shared machine) and of the per-pair ratios. Issue 41's goal was 2× the
// empty program; docs/cli.md explains why the floor alone is several
// times that.
//
//	go test -run x -bench BenchmarkRun_VsEmptyProgram -benchtime 31x ./cmd/helikon
func BenchmarkRun_VsEmptyProgram(b *testing.B) {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "agents.toml"), startupSidecar)
	write(b, filepath.Join(dir, "echo.json"), startupScript)
	empty := buildFile(b, dir, "empty", "package main\n\nfunc main() {}\n")
	cases := []struct {
		name string
		argv []string
	}{
		{"run", []string{initcost.Build(b, "."), "run", "hi"}},
		{"floor", []string{buildFloor(b, dir)}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var cpu, base, ratio []float64
			first := false
			for b.Loop() {
				var a, e float64
				if first {
					a, e = cpuMS(b, dir, c.argv), cpuMS(b, dir, []string{empty})
				} else {
					e, a = cpuMS(b, dir, []string{empty}), cpuMS(b, dir, c.argv)
				}
				first = !first
				cpu, base, ratio = append(cpu, a), append(base, e), append(ratio, a/max(e, 0.001))
			}
			b.ReportMetric(median(cpu), "ms-cpu-median")
			b.ReportMetric(median(base), "ms-cpu-empty-median")
			b.ReportMetric(median(ratio), "x-empty-median")
		})
	}
}

// cpuMS runs argv in dir and returns its CPU time (user+system) in
// milliseconds.
func cpuMS(b *testing.B, dir string, argv []string) float64 {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	st := cmd.ProcessState
	return float64((st.UserTime() + st.SystemTime()).Microseconds()) / 1000
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func write(b *testing.B, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// buildFile builds the main package src, standing alone, as dir/name.
func buildFile(b *testing.B, dir, name, src string) string {
	file := filepath.Join(dir, name+".go")
	write(b, file, src)
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, file)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return bin
}

// buildFloor builds a program that imports, blank, every package outside
// this module that a package of this module linked into the command
// imports, so it runs every init the command runs but none of our code.
// The file is laid into the module through -overlay, so it resolves the
// module's dependency versions without being written to the tree.
func buildFloor(b *testing.B, dir string) string {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}}{{end}}`, ".").Output()
	if err != nil {
		b.Fatalf("go list -deps: %v", err)
	}
	var ours []string
	for p := range strings.FieldsSeq(string(out)) {
		if p == initcost.Module || strings.HasPrefix(p, initcost.Module+"/") {
			ours = append(ours, p)
		}
	}
	out, err = exec.Command("go", append([]string{"list", "-f", `{{join .Imports "\n"}}`}, ours...)...).Output()
	if err != nil {
		b.Fatalf("go list imports: %v", err)
	}
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	seen := map[string]bool{}
	for p := range strings.FieldsSeq(string(out)) {
		if seen[p] || p == "C" || p == initcost.Module || strings.HasPrefix(p, initcost.Module+"/") {
			continue
		}
		seen[p] = true
		src.WriteString("\t_ \"" + p + "\"\n")
	}
	src.WriteString(")\n\nfunc main() {}\n")
	gen := filepath.Join(dir, "floor.go")
	write(b, gen, src.String())
	wd, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	virtual := filepath.Join(wd, "startupfloor", "main.go")
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {virtual: gen}})
	if err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Join(dir, "overlay.json"), string(overlay))
	bin := filepath.Join(dir, "floor")
	start := time.Now()
	if out, err := exec.Command("go", "build", "-overlay", filepath.Join(dir, "overlay.json"), "-o", bin, "./startupfloor").CombinedOutput(); err != nil {
		b.Fatalf("go build the floor program: %v\n%s", err, out)
	}
	b.Logf("floor program: %d packages imported blank, built in %v", len(seen), time.Since(start).Round(time.Millisecond))
	return bin
}
