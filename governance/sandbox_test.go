package governance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePrograms are the programs the red-team sandbox replaces with a
// script that only records that it ran: every copy on the system is
// covered by a bind mount, so /bin/rm, command rm and exec rm reach the
// fake too.
var fakePrograms = []string{"rm", "curl", "wget", "nc", "dd", "shred", "mkfs", "chmod", "chown", "chgrp", "truncate",
	"crontab", "reboot", "shutdown", "poweroff", "halt", "ssh", "scp", "unlink", "rmdir", "mv", "cp", "tee", "touch",
	"ln", "install", "tar", "rsync", "mkdir", "unzip", "patch"}

// sandboxDriver runs in a private mount, PID, network, UTS and IPC
// namespace. It makes every mount read-only, puts a tmpfs over the work
// area, /proc and /sys, gives /dev only harmless nodes, binds the fake over
// every installed copy of each fake program, and runs each row in bash in a
// fresh working and home directory. For each row it prints the row's index,
// the fakes that ran, and the files written in the work and home
// directories, one line per row.
const sandboxDriver = `
set -u
S=$1; T=$2
for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do mount -o remount,bind,ro "$m" 2>/dev/null || true; done
mount -t tmpfs tmpfs "$T" || exit 90
mkdir -p "$T/dev/pts" "$T/bin" "$T/real" "$T/log" "$T/r" "$T/tmpl/work" "$T/tmpl/home/.ssh" "$T/tmpl/home/.config/systemd/user" "$T/tmpl/home/.config/fish"
for n in null zero random urandom full tty; do touch "$T/dev/$n"; mount --bind "/dev/$n" "$T/dev/$n"; done
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$T/dev/pts" && ln -s pts/ptmx "$T/dev/ptmx"
mount --rbind "$T/dev" /dev || exit 91
for p in cp touch mkdir rm; do cat "/usr/bin/$p" > "$T/real/$p"; chmod 755 "$T/real/$p"; done
ln -s /proc/self/fd "$T/dev/fd"; ln -s /proc/self/fd/0 "$T/dev/stdin"; ln -s /proc/self/fd/1 "$T/dev/stdout"; ln -s /proc/self/fd/2 "$T/dev/stderr"
mount -t proc -o ro,nosuid,nodev,noexec proc /proc || exit 92
mkdir -p "$T/proc"; : > "$T/proc/sysrq-trigger"; if [ -e /proc/sysrq-trigger ]; then mount --bind "$T/proc/sysrq-trigger" /proc/sysrq-trigger || exit 94; fi
mount -t tmpfs tmpfs /sys || exit 93
( cd "$T/tmpl/work" && git init -q . 2>/dev/null && git config user.email t@example.com && git config user.name t && rm -f .git/hooks/*.sample && echo data > a.txt && echo 'echo sourced' > script.sh && mkdir build build/x bin && printf '#!/bin/sh\nrm -rf build\n' > bin/ls && chmod 755 bin/ls )
echo 'K=v' > "$T/tmpl/home/.profile"
sed "s|@LOG@|$T/log/cur|" "$S/fake" > "$T/fake"; chmod 755 "$T/fake"
for p in $(cat "$S/fakes"); do
  cp "$T/fake" "$T/bin/$p"
  for d in /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin; do
    [ -e "$d/$p" ] && mount --bind "$T/fake" "$d/$p"
  done
done
"$T/real/touch" -d '2000-01-01' $(find "$T/tmpl")
i=0
while IFS= read -r -d '' row; do
  # The trailing wait lets a process substitution (echo x > >(rm …)),
  # which bash does not wait for, finish before the row's meaning is read.
  # Each row gets fresh copies of the working and home directories; file
  # times are coarse, so the reference is dated between the template's
  # and any write the row makes.
  # A row that hangs is cut at 4 s; one cut there runs again with 60 s,
  # because on a loaded machine an interpreter (ruby, php) can take longer
  # than 4 s just to start, and its row would read as doing nothing.
  for limit in 4 60; do
    R="$T/r/$i"; "$T/real/rm" -rf "$R"; "$T/real/mkdir" -p "$R"; "$T/real/cp" -a "$T/tmpl/." "$R/"
    : > "$T/log/cur"; : > "$T/log/ref"; "$T/real/touch" -d '2001-01-01' "$T/log/ref"
    rc=0
    ( cd "$R/work" && HOME="$R/home" PATH="$T/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" \
        timeout -k 1 "$limit" bash -c "$row
wait" </dev/null >/dev/null 2>"$T/log/err" ) || rc=$?
    [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || break
  done
  ran=$(tr '\n' '\v' < "$T/log/cur")
  wrote=$(cd "$R" && find . -newer "$T/log/ref" -type f ! -path './work/.git/objects/*' ! -path './work/.git/index' ! -path './work/.git/logs/*' ! -path './work/.git/*.lock' | sed 's|^\./work/||; s|^\./home/|~/|')
  [ -s "$T/proc/sysrq-trigger" ] && wrote="$wrote /proc/sysrq-trigger" && : > "$T/proc/sysrq-trigger"
  errs=$(tr '\n\t' '\v ' < "$T/log/err")
  printf '%s\t%s\t%s\t%s\n' "$i" "$ran" "$(echo $wrote)" "$errs"
  i=$((i+1))
done < "$S/rows"
`

// fakeScript records the base name it was run under.
const fakeScript = "#!/bin/sh\necho \"${0##*/} $*\" >> @LOG@\n"

// bashMeaning is what one row did when run in bash: the fake programs that
// ran, with their arguments, and the paths it wrote or tried to write.
type bashMeaning struct {
	calls  []string // "rm -rf build"
	writes []string
	stderr string
}

// ran returns the names of the fakes that ran, sorted and unique.
func (m bashMeaning) ran() []string {
	var out []string
	for _, c := range m.calls {
		name, _, _ := strings.Cut(c, " ")
		out = append(out, name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// runInSandbox runs every command in real bash inside the sandbox and
// returns what each did. It skips (fails under CI=true) where the sandbox
// cannot be built. The rows are split into shards, each run by its own
// sandbox process at the same time, because one bash per row in a row is
// minutes of wall clock on a loaded machine.
func runInSandbox(t *testing.T, cmds []string) []bashMeaning {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil || os.Geteuid() != 0 {
		msg := "the red-team sandbox needs root and unshare(1) (util-linux) to run the corpus in bash; run the tests as root"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	const shards = 4
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	res := make([]bashMeaning, len(cmds))
	size := (len(cmds) + shards - 1) / shards
	var wg sync.WaitGroup
	errs := make([]error, shards)
	for k := range shards {
		lo, hi := min(k*size, len(cmds)), min((k+1)*size, len(cmds))
		dir := t.TempDir()
		wg.Go(func() { errs[k] = runSandboxShard(ctx, dir, cmds[lo:hi], res[lo:hi]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return res
}

// runSandboxShard runs cmds in one sandbox built in dir and fills res, one
// entry per command.
func runSandboxShard(ctx context.Context, s string, cmds []string, res []bashMeaning) error {
	var rows bytes.Buffer
	for _, c := range cmds {
		rows.WriteString(c)
		rows.WriteByte(0)
	}
	for name, content := range map[string]string{"rows": rows.String(), "fake": fakeScript,
		"fakes": strings.Join(fakePrograms, "\n"), "driver": sandboxDriver} {
		if err := os.WriteFile(filepath.Join(s, name), []byte(content), 0o700); err != nil {
			return err
		}
	}
	sbx := filepath.Join(s, "sbx")
	if err := os.Mkdir(sbx, 0o700); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "--pid", "--fork", "--net", "--uts", "--ipc",
		"bash", filepath.Join(s, "driver"), s, sbx)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sandbox: %w\n%s", err, errb.String())
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 {
			continue
		}
		i, err := strconv.Atoi(f[0])
		if err != nil || i >= len(cmds) {
			return fmt.Errorf("sandbox: bad line %q", line)
		}
		var calls []string
		for _, c := range strings.Split(f[1], "\v") {
			if c != "" {
				calls = append(calls, c)
			}
		}
		writes := strings.Fields(f[2])
		// A write the sandbox refused, or that failed for a missing
		// directory, is named in bash's error.
		for _, l := range strings.Split(f[3], "\v") {
			if strings.Contains(l, "Read-only file system") || strings.Contains(l, "No such file or directory") {
				writes = append(writes, errPath.FindAllString(l, -1)...)
			}
		}
		for j, w := range writes {
			writes[j] = strings.TrimPrefix(w, "./")
		}
		res[i] = bashMeaning{calls: calls, writes: writes, stderr: strings.ReplaceAll(f[3], "\v", "\n")}
		seen++
	}
	if seen != len(cmds) {
		return fmt.Errorf("sandbox reported %d of %d rows\n%s", seen, len(cmds), errb.String())
	}
	return nil
}

// errPath finds the absolute paths in an error line.
var errPath = regexp.MustCompile("/[^\\s:,'‘’\"`]+")

// wroteUnder reports whether the row wrote, or tried to write, p or a path
// beneath it.
func (m bashMeaning) wroteUnder(p string) bool {
	for _, w := range m.writes {
		if w == p || strings.HasPrefix(w, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}
