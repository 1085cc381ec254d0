//go:build linux

package starlarktool_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/cli/starlarktool"
)

// hostileCase is a script written to take down whatever runs it.
type hostileCase struct {
	Name string `json:"name"`
	// Src is the script; when Load is set the attack is in its top level,
	// so New must fail, else in run.
	Src  string `json:"src"`
	Args string `json:"args"`
	Load bool   `json:"load"`
	// Want is the cap the run must be stopped by; "" is a script error of
	// its own (fail()), which must still fit the output cap.
	Want starlarktool.Limit `json:"want"`
	// Memory, Timeout and Steps (0: the default) are the caps the script
	// runs under.
	Steps   uint64        `json:"steps"`
	Memory  int64         `json:"memory"`
	Timeout time.Duration `json:"timeout"`
}

const (
	hostileOutput = 64 << 10
	// hostHeadroom is what the host process may map beyond its size at
	// start: a script that ran in it instead of in a worker would end it.
	// Its workers inherit the limits and keep them where they are lower
	// than their own, so it is above their largest memory cap (512 MiB)
	// with their thread allowance (48 MiB) and 80 MiB besides.
	hostHeadroom = 640 << 20
	// hostMaxRSS bounds the host's peak resident size: it holds only
	// arguments, results and errors, each under its cap.
	hostMaxRSS = 96 << 20
)

// terabyte builds a list whose JSON is a terabyte from repeated
// references, in 15 steps.
const terabyte = `
a = "x" * 1024
a = [a] * 64
a = [a] * 64
a = [a] * 64
a = [a] * 64
a = [a] * 64
`

// terabyteGlobals is terabyte at the top level, where a global is
// assigned once.
const terabyteGlobals = `
a = "x" * 1024
b = [a] * 64
c = [b] * 64
d = [c] * 64
e = [d] * 64
f = [e] * 64
g = json.encode(f)
def run(args):
    return 1
`

// Memory cases run with a small memory cap and a long time cap, time
// cases the other way round, so each can be stopped by one cap only. A
// time case's work takes minutes, so that a host which ran it itself
// would not end before the test stops it.
var (
	memoryCase = hostileCase{Memory: 128 << 20, Timeout: 20 * time.Second, Want: starlarktool.LimitMemory}
	// deepCase has the smallest memory cap, so the least stack (8 MiB),
	// and steps enough to nest a value 300,000 deep.
	deepCase = hostileCase{Memory: 64 << 20, Timeout: 20 * time.Second, Steps: 5_000_000, Want: starlarktool.LimitMemory}
	timeCase = hostileCase{Memory: 512 << 20, Timeout: 300 * time.Millisecond, Want: starlarktool.LimitTime}
)

// deepList is a run that builds a list nested 300,000 deep in about
// 1,800,000 steps, then applies op to it.
func deepList(op string) string {
	return "def run(args):\n    a = []\n    for i in range(300000):\n        a = [a]\n    return " + op + "\n"
}

var hostileCases = []hostileCase{
	memoryCase.with("terabyte json.encode in run", "def run(args):\n"+indent(terabyte)+"    return len(json.encode(a))\n"),
	memoryCase.with("terabyte result encoded by the tool", "def run(args):\n"+indent(terabyte)+"    return a\n"),
	memoryCase.at("terabyte json.encode at load", terabyteGlobals),
	memoryCase.at("terabyte json.encode at load in a function", "def f():\n"+indent(terabyte)+"    return json.encode(a)\nb = f()\ndef run(args):\n    return 1\n"),
	memoryCase.with("json.indent of a terabyte", "def run(args):\n"+indent(terabyte)+"    return len(json.indent(json.encode(a)))\n"),
	memoryCase.with("deep json.decode", "def run(args):\n    n = 1 << 20\n    return json.decode(\"[\" * n + \"]\" * n)\n"),
	memoryCase.at("deep json.decode at load", "n = 1 << 20\nx = json.decode(\"[\" * n + \"]\" * n)\ndef run(args):\n    return 1\n"),
	memoryCase.withArgs("deep arguments from the model", "def run(args):\n    return 1\n",
		`{"a":`+strings.Repeat("[", 500_000)+strings.Repeat("]", 500_000)+`}`),
	memoryCase.with("string repetition", "def run(args):\n    return len(\"x\" * ((1 << 30) - 1))\n"),
	memoryCase.with("list repetition", "def run(args):\n    return len([0] * (1 << 29))\n"),
	memoryCase.with("list repetition past the heap", "def run(args):\n    return len([0] * (12 << 20))\n"),
	memoryCase.with("range materialised", "def run(args):\n    return len(list(range(1 << 40)))\n"),
	memoryCase.with("dict growth", "def run(args):\n    return len(dict(zip(range(1 << 26), range(1 << 26))))\n"),
	memoryCase.with("str.join of a huge list", "def run(args):\n    return len(\",\".join([\"x\" * 1000000] * 2000))\n"),
	memoryCase.with("replace explosion", "def run(args):\n    return len((\"x\" * (1 << 20)).replace(\"x\", \"y\" * 1000))\n"),
	memoryCase.with("split into millions", "def run(args):\n    return len((\"x \" * (1 << 25)).split())\n"),
	deepCase.with("repr of a deep list", deepList("len(str(a))")),
	deepCase.with("% of a deep list", deepList("len(\"%s\" % [a])")),
	deepCase.with("json.encode of a deep list", deepList("len(json.encode(a))")),
	deepCase.with("hash of a deep tuple", "def run(args):\n    t = ()\n    for i in range(300000):\n        t = (t,)\n    return len({t: 1})\n"),
	timeCase.with("sorted of millions", "def run(args):\n    x = list(range(3000000))\n    return [len(sorted(x, reverse = True)) for i in range(1000)]\n"),
	timeCase.with("== on large nested structures", "def run(args):\n    a = [[0] * 1000000] * 100000\n    b = [[0] * 1000000] * 100000\n    return a == b\n"),
	timeCase.with("json.encode for seconds", "def run(args):\n    x = [[0] * 100] * 100000\n    return [len(json.encode(x)) for i in range(1000)]\n"),
	timeCase.with("json.decode for seconds", "def run(args):\n    s = json.encode([[0] * 100] * 10000)\n    return [len(json.decode(s)) for i in range(10000)]\n"),
	timeCase.with("big integer products", "def run(args):\n    x = 1 << 500\n    for i in range(14):\n        x = x * x\n    return [x * x > 0 for i in range(10000)]\n"),
	timeCase.at("sorted at load", "x = list(range(3000000))\ny = [sorted(x, reverse = True)[0] for i in range(1000)]\ndef run(args):\n    return 1\n"),
	{Name: "fail() larger than the output cap", Src: "def run(args):\n    fail(\"x\" * (8 << 20))\n", Memory: 256 << 20, Timeout: 5 * time.Second},
}

// with is c as a case named name whose run is src.
func (c hostileCase) with(name, src string) hostileCase {
	c.Name, c.Src = name, src
	return c
}

// at is c as a case whose attack is in src's top level.
func (c hostileCase) at(name, src string) hostileCase {
	c.Name, c.Src, c.Load = name, src, true
	return c
}

// withArgs is c called with args.
func (c hostileCase) withArgs(name, src, args string) hostileCase {
	c.Name, c.Src, c.Args = name, src, args
	return c
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

// hostileReport is what the host child says happened.
type hostileReport struct {
	ToolError bool               `json:"tool_error"`
	Limit     starlarktool.Limit `json:"limit"`
	Msg       string             `json:"msg"`
	Elapsed   time.Duration      `json:"elapsed"`
	// After is the error of a plain call made once the hostile one failed:
	// the host and its pool keep serving.
	After string `json:"after"`
	// WorkerMaxRSS is the peak resident size of the reaped workers,
	// HostMaxRSS the host's own.
	WorkerMaxRSS int64 `json:"worker_max_rss"`
	HostMaxRSS   int64 `json:"host_max_rss"`
}

const hostileEnv = "STARLARKTOOL_HOSTILE_CASE"

// TestTool_HostileScriptsAreTypedErrorsAndTheHostLives runs each hostile
// script from a host process of its own whose memory the kernel caps, so a
// script that escaped its worker would end that host, not the test binary:
// the host must survive, get a typed error naming the cap, and go on
// serving calls.
func TestTool_HostileScriptsAreTypedErrorsAndTheHostLives(t *testing.T) {
	for _, hc := range hostileCases {
		t.Run(hc.Name, func(t *testing.T) {
			t.Parallel()
			spec, _ := json.Marshal(hc)
			// Each time case would run for minutes without its cap: a
			// host that ran it itself outlasts this, and fails.
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileHost$", "-test.count=1")
			cmd.Env = append(os.Environ(), hostileEnv+"=1")
			cmd.Stdin = bytes.NewReader(spec)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("the host process failed (%v)\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
			}
			line, _, _ := strings.Cut(stdout.String(), "\n")
			var rep hostileReport
			if err := json.Unmarshal([]byte(line), &rep); err != nil {
				t.Fatalf("host report %q: %v\nstderr: %s", stdout.String(), err, stderr.String())
			}
			t.Logf("%q after %v, peak RSS %d MiB in workers, %d MiB in the host: %.300s", rep.Limit, rep.Elapsed, rep.WorkerMaxRSS>>20, rep.HostMaxRSS>>20, rep.Msg)
			if !hc.Load && !rep.ToolError {
				t.Errorf("the call's error is not a helikon.ToolError: %s", rep.Msg)
			}
			if rep.Limit != hc.Want {
				t.Errorf("stopped by cap %q, want %q: %.300s", rep.Limit, hc.Want, rep.Msg)
			}
			if hc.Want != "" && !strings.Contains(rep.Msg, string(hc.Want)+" cap") {
				t.Errorf("message %.300q does not name the %s cap", rep.Msg, hc.Want)
			}
			if len(rep.Msg) > hostileOutput+256 {
				t.Errorf("error is %d bytes, over the %d-byte output cap", len(rep.Msg), hostileOutput)
			}
			if rep.After != "" {
				t.Errorf("the next call failed: %s", rep.After)
			}
			if rep.HostMaxRSS > hostMaxRSS {
				t.Errorf("the host peaked at %d MiB resident, over %d MiB", rep.HostMaxRSS>>20, hostMaxRSS>>20)
			}
			if !raceBuild && rep.WorkerMaxRSS > hc.Memory+64<<20 {
				t.Errorf("a worker peaked at %d MiB resident, over the %d MiB cap and its runtime", rep.WorkerMaxRSS>>20, hc.Memory>>20)
			}
		})
	}
}

// TestHostileHost is the host side of one hostile case, run only as a
// child of TestTool_HostileScriptsAreTypedErrorsAndTheHostLives.
func TestHostileHost(t *testing.T) {
	if os.Getenv(hostileEnv) == "" {
		t.Skip("runs only as the host process of a hostile case")
	}
	var hc hostileCase
	if err := json.NewDecoder(os.Stdin).Decode(&hc); err != nil {
		t.Fatal(err)
	}
	capHost(t)
	lim := starlarktool.Limits{MemoryBytes: hc.Memory, Timeout: hc.Timeout, MaxSteps: hc.Steps, MaxOutputBytes: hostileOutput, MaxArgsBytes: 4 << 20}
	args := hc.Args
	if args == "" {
		args = "{}"
	}
	t0 := time.Now()
	tool, err := starlarktool.New("t", "", objectParams, "t.star", hc.Src, starlarktool.WithLimits(lim))
	if err == nil {
		_, err = tool.Call(&helikon.ToolContext{Context: context.Background()}, json.RawMessage(args))
	}
	rep := hostileReport{Elapsed: time.Since(t0)}
	if err == nil {
		t.Fatal("the hostile script succeeded")
	}
	var te *helikon.ToolError
	rep.ToolError = errors.As(err, &te)
	var se *starlarktool.ScriptError
	if errors.As(err, &se) {
		rep.Limit = se.Limit
	}
	rep.Msg = err.Error()
	plain, err := starlarktool.New("plain", "", objectParams, "plain.star", "def run(args):\n    return args\n", starlarktool.WithLimits(lim))
	if err == nil {
		_, err = plain.Call(&helikon.ToolContext{Context: context.Background()}, json.RawMessage(`{"ok": true}`))
	}
	if err != nil {
		rep.After = err.Error()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		rep.WorkerMaxRSS = ru.Maxrss << 10
	}
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		rep.HostMaxRSS = ru.Maxrss << 10
	}
	out, _ := json.Marshal(rep)
	os.Stdout.Write(append(out, '\n'))
}

// capHost limits this host process's address space and data to their
// size now plus hostHeadroom, as a worker's are, so that a script run in
// it instead of in a worker ends it.
func capHost(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		for prefix, res := range map[string]int{"VmSize:": syscall.RLIMIT_AS, "VmData:": syscall.RLIMIT_DATA} {
			rest, ok := strings.CutPrefix(l, prefix)
			if !ok {
				continue
			}
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			lim := kb<<10 + hostHeadroom
			if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
				t.Fatal(err)
			}
		}
	}
}
