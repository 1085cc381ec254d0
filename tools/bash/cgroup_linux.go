package bash

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// cgroups is where a backend makes the control groups of its calls: a
// cgroup v2 directory under this process's own cgroup, in which a call's
// cgroup gets cgroup.kill, and, when the pids controller is mounted where
// this process may use it, a pids cgroup that caps the call's processes.
type cgroups struct {
	// v2 is the cgroup2 directory a call's cgroup is made in.
	v2 string
	// pids is the directory a call's pids cgroup is made in: v2 itself
	// when the pids controller is enabled there, a cgroup v1 pids
	// hierarchy otherwise, "" when neither is writable.
	pids string
}

// callSeq numbers the calls of this process, so concurrent calls get
// distinct cgroups.
var callSeq atomic.Uint64

// findCgroups returns where this process may make a cgroup per call, or
// an error saying why it may not. It probes by making and removing one.
func findCgroups() (*cgroups, error) {
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
	if ctl, err := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control")); err == nil && hasWord(ctl, "pids") {
		g.pids = v2
	} else if v1 := cgroupDir(mounts, own, "pids"); v1 != "" && writableDir(v1) {
		g.pids = v1
	}
	return g, nil
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
	probe := filepath.Join(dir, fmt.Sprintf("helikon-bash-%d-probe-%d", os.Getpid(), callSeq.Add(1)))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false
	}
	_ = os.Remove(probe)
	return true
}

// callCgroup is the cgroup of one call (and its pids cgroup, if any).
type callCgroup struct {
	dir, pids string
	removed   bool
}

// newCall makes the cgroups of a call, the pids one capped at maxProcs
// when maxProcs > 0.
func (g *cgroups) newCall(maxProcs int) (*callCgroup, error) {
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
	return c, nil
}

// add moves pid into the call's cgroups. The shell waits for the
// go-ahead before it runs anything, so it has no child yet.
func (c *callCgroup) add(pid int) error {
	dirs := []string{c.dir}
	if c.pids != "" && c.pids != c.dir {
		dirs = append(dirs, c.pids)
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
	if c.pids != "" && c.pids != c.dir {
		_ = os.Remove(c.pids)
	}
	return nil
}
