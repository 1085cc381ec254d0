package bash

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroups is where a backend makes the control groups of its calls: a
// cgroup v2 directory under this process's own cgroup, in which a call's
// cgroup gets cgroup.kill, and, when the pids controller is mounted where
// this process may use it, a pids cgroup that caps the call's processes,
// and likewise a memory cgroup that caps their memory.
type cgroups struct {
	// v2 is the cgroup2 directory a call's cgroup is made in.
	v2 string
	// pids is the directory a call's pids cgroup is made in: v2 itself
	// when the pids controller is enabled there, a cgroup v1 pids
	// hierarchy otherwise, "" when neither is writable.
	pids string
	// memory is the directory a call's memory cgroup is made in: v2
	// itself when the memory controller is enabled there, a cgroup v1
	// memory hierarchy otherwise, "" when neither is writable or no
	// memory cap was asked for.
	memory string
	// swapCapped says the memory cgroup caps swap too (the kernel
	// accounts it: memory.swap.max, memory.memsw.limit_in_bytes).
	swapCapped bool
}

// callSeq numbers the calls of this process, so concurrent calls get
// distinct cgroups.
var callSeq atomic.Uint64

// findCgroups returns where this process may make a cgroup per call, or
// an error saying why it may not. It probes by making and removing one.
// With memory, it looks for a memory controller too, and enables it
// for the cgroups it makes where it is available but not enabled.
func findCgroups(memory bool) (*cgroups, error) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	v2 := cgroupDir(mounts, own, "")
	if v2 == "" {
		return nil, errors.New("no cgroup2 hierarchy is mounted for this process")
	}
	probe := filepath.Join(v2, fmt.Sprintf("helikon-bash-%d-probe-%d", os.Getpid(), callSeq.Add(1)))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make a cgroup in %s: %w", v2, err)
	}
	_, kerr := os.Stat(filepath.Join(probe, "cgroup.kill"))
	_ = os.Remove(probe)
	if kerr != nil {
		return nil, fmt.Errorf("cgroup.kill is missing (it needs Linux 5.14): %w", kerr)
	}
	g := &cgroups{v2: v2}
	ctl, _ := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control"))
	if hasWord(ctl, "pids") {
		g.pids = v2
	} else if v1 := cgroupDir(mounts, own, "pids"); v1 != "" && writableDir(v1) {
		g.pids = v1
	}
	if memory {
		swap := "memory.swap.max"
		if hasWord(ctl, "memory") || enableController(v2, "memory") {
			g.memory = v2
		} else if v1 := cgroupDir(mounts, own, "memory"); v1 != "" {
			g.memory, swap = v1, "memory.memsw.limit_in_bytes"
		}
		// Whether swap is capped too is the kernel's (its swap
		// accounting); a cgroup made to probe shows it.
		made, has := probeCgroup(g.memory, swap)
		if !made {
			g.memory = ""
		}
		g.swapCapped = has
	}
	return g, nil
}

// enableController turns controller on for the cgroups made in dir where
// the kernel lets this process: the controller must be available there,
// and dir must be the root or hold no process (cgroup v2's rule that only
// leaves hold processes). A delegated subtree's owner does the same.
func enableController(dir, controller string) bool {
	avail, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil || !hasWord(avail, controller) {
		return false
	}
	return writeCgroupFile(filepath.Join(dir, "cgroup.subtree_control"), "+"+controller) == nil
}

// cgroupDir returns the directory of this process's cgroup in the cgroup2
// hierarchy (controller "") or in the cgroup v1 hierarchy of controller,
// from /proc/self/mountinfo and /proc/self/cgroup, or "".
func cgroupDir(mountinfo, self []byte, controller string) string {
	var path string
	for _, line := range strings.Split(string(self), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if (controller == "" && f[0] == "0" && f[1] == "") || (controller != "" && hasWord([]byte(strings.ReplaceAll(f[1], ",", " ")), controller)) {
			path = f[2]
			break
		}
	}
	if path == "" {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch {
		case controller == "" && qf[0] == "cgroup2":
		case controller != "" && qf[0] == "cgroup" && hasWord([]byte(strings.ReplaceAll(qf[2], ",", " ")), controller):
		default:
			continue
		}
		root, point := pf[3], pf[4]
		rel, err := filepath.Rel(root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		return filepath.Join(point, rel)
	}
	return ""
}

func hasWord(b []byte, w string) bool {
	for _, f := range strings.Fields(string(b)) {
		if f == w {
			return true
		}
	}
	return false
}

func writableDir(dir string) bool {
	made, _ := probeCgroup(dir, "")
	return made
}

// probeCgroup makes a cgroup in dir and removes it, reporting whether it
// could be made and whether it had the control file named file.
func probeCgroup(dir, file string) (made, has bool) {
	if dir == "" {
		return false, false
	}
	probe := filepath.Join(dir, fmt.Sprintf("helikon-bash-%d-probe-%d", os.Getpid(), callSeq.Add(1)))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false, false
	}
	if file != "" {
		_, err := os.Stat(filepath.Join(probe, file))
		has = err == nil
	}
	_ = os.Remove(probe)
	return true, has
}

// writeCgroupFile writes v to an existing control file: a file the
// kernel does not have is fs.ErrNotExist, not a create.
func writeCgroupFile(path, v string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(v)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// callCgroup is the cgroup of one call (and its pids and memory cgroups,
// if any).
type callCgroup struct {
	dir, pids, mem string
	// memV1 says mem is in a cgroup v1 hierarchy, where the kernel kills
	// one process at a time for memory (cgroup v2's memory.oom.group
	// kills the whole call): watchOOM ends the rest.
	memV1   bool
	removed bool
}

// newCall makes the cgroups of a call, the pids one capped at maxProcs
// when maxProcs > 0, the memory one at maxMem bytes when maxMem > 0.
func (g *cgroups) newCall(maxProcs int, maxMem uint64) (*callCgroup, error) {
	name := fmt.Sprintf("helikon-bash-%d-%d", os.Getpid(), callSeq.Add(1))
	c := &callCgroup{dir: filepath.Join(g.v2, name)}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("bash: make the call's cgroup: %w", err)
	}
	if maxProcs > 0 && g.pids != "" {
		c.pids = c.dir
		if g.pids != g.v2 {
			c.pids = filepath.Join(g.pids, name)
			if err := os.Mkdir(c.pids, 0o755); err != nil {
				c.remove()
				return nil, fmt.Errorf("bash: make the call's pids cgroup: %w", err)
			}
		}
		if err := os.WriteFile(filepath.Join(c.pids, "pids.max"), []byte(strconv.Itoa(maxProcs)), 0); err != nil {
			c.remove()
			return nil, fmt.Errorf("bash: cap the call's processes: %w", err)
		}
	}
	if maxMem > 0 && g.memory != "" {
		c.mem, c.memV1 = c.dir, g.memory != g.v2
		if c.memV1 {
			c.mem = filepath.Join(g.memory, name)
			if err := os.Mkdir(c.mem, 0o755); err != nil {
				c.remove()
				return nil, fmt.Errorf("bash: make the call's memory cgroup: %w", err)
			}
		}
		if err := c.capMemory(maxMem); err != nil {
			c.remove()
			return nil, fmt.Errorf("bash: cap the call's memory: %w", err)
		}
	}
	return c, nil
}

// capMemory caps the call's memory at n bytes and its swap at none. In
// cgroup v2 an out-of-memory kill takes every process of the call
// (memory.oom.group), so a call that reaches its cap ends whole.
func (c *callCgroup) capMemory(n uint64) error {
	v := strconv.FormatUint(n, 10)
	files := [][2]string{{"memory.max", v}, {"memory.swap.max", "0"}, {"memory.oom.group", "1"}}
	if c.memV1 {
		// The memory+swap limit may not be below the memory one; equal,
		// it leaves no swap.
		files = [][2]string{{"memory.limit_in_bytes", v}, {"memory.memsw.limit_in_bytes", v}}
	}
	for i, f := range files {
		err := writeCgroupFile(filepath.Join(c.mem, f[0]), f[1])
		if i == 1 && errors.Is(err, fs.ErrNotExist) {
			continue // no swap accounting here; the label says so
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// watchOOM returns a channel that is closed when the call's memory
// cgroup goes out of memory, where the kernel does not end the whole call
// itself (cgroup v1: the backend then does), and stop, which ends the
// watch and waits for it. The channel is nil, never ready, where there is
// nothing to watch.
func (c *callCgroup) watchOOM() (oom <-chan struct{}, stop func(), err error) {
	if !c.memV1 {
		return nil, func() {}, nil
	}
	// cgroup v1's notification: an eventfd the kernel signals on every
	// out-of-memory event of the cgroup, registered with the cgroup's
	// memory.oom_control in cgroup.event_control.
	fd, _, errno := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		return nil, nil, fmt.Errorf("bash: watch the call's memory: eventfd: %w", errno)
	}
	// Non-blocking, so Close ends a Read in progress.
	ev := os.NewFile(fd, "oom eventfd")
	ctl, err := os.Open(filepath.Join(c.mem, "memory.oom_control"))
	if err == nil {
		err = writeCgroupFile(filepath.Join(c.mem, "cgroup.event_control"), fmt.Sprintf("%d %d", fd, ctl.Fd()))
		ctl.Close()
	}
	if err != nil {
		ev.Close()
		return nil, nil, fmt.Errorf("bash: watch the call's memory: %w", err)
	}
	fired, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var b [8]byte
		if _, err := ev.Read(b[:]); err == nil {
			close(fired)
		}
	}()
	stopped := false
	return fired, func() {
		if !stopped {
			stopped = true
			ev.Close()
			<-done
		}
	}, nil
}

// oomKills returns how many processes of the call the kernel killed for
// memory (the oom_kill count of memory.events, or memory.oom_control in
// cgroup v1).
func (c *callCgroup) oomKills() int {
	if c.mem == "" {
		return 0
	}
	file := "memory.events"
	if c.memV1 {
		file = "memory.oom_control"
	}
	b, err := os.ReadFile(filepath.Join(c.mem, file))
	if err != nil {
		return 0
	}
	return eventCount(b, "oom_kill")
}

// eventCount returns the count of key in a cgroup's "key count" lines.
func eventCount(b []byte, key string) int {
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// add moves pid into the call's cgroups. The shell waits for the
// go-ahead before it runs anything, so it has no child yet.
func (c *callCgroup) add(pid int) error {
	dirs := []string{c.dir}
	for _, d := range []string{c.pids, c.mem} {
		if d != "" && d != c.dir {
			dirs = append(dirs, d)
		}
	}
	for _, dir := range dirs {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("bash: move the shell into %s: %w", dir, err)
		}
	}
	return nil
}

// kill sends SIGKILL to every process in the call's cgroup; the kernel
// takes the ones forked meanwhile too.
func (c *callCgroup) kill() {
	_ = os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
}

// remove waits for the killed processes to die (at most about five
// seconds: a process in an uninterruptible sleep dies when it wakes) and
// removes the call's cgroups. It reports the processes it saw survive.
func (c *callCgroup) remove() error {
	if c.removed {
		return nil
	}
	c.removed = true
	wait := 50 * time.Microsecond
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
		if err != nil || bytes.Contains(b, []byte("populated 0")) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("bash: processes of the command outlived cgroup.kill in %s", c.dir)
		}
		time.Sleep(wait)
		wait = min(2*wait, 20*time.Millisecond)
	}
	_ = os.Remove(c.dir)
	for _, d := range []string{c.pids, c.mem} {
		if d != "" && d != c.dir {
			_ = os.Remove(d)
		}
	}
	return nil
}
