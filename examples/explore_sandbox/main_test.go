package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/sandbox"
)

func TestExploreSandbox_WorkInsideSucceedsAndEveryEscapeIsRefused(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock")
	var out strings.Builder
	dir := t.TempDir()
	// Run as root, the sandbox's commands run as an unprivileged user,
	// which must get through the test's 0700 temporary directory.
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		t.Fatal(err)
	}
	shell, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), &out, dir); err != nil {
		t.Fatal(err)
	}
	// The label names what this machine's kernel and privileges give
	// the sandbox; the example prints whatever the backend reports.
	probeDir := t.TempDir()
	if err := os.Chmod(filepath.Dir(probeDir), 0o711); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.Open(probeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	probe, err := bash.NewOsSandboxBackend(sb)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(`Bash runs under: LABEL
→ Read {"file_path":"notes.md"}
← 1	# Today | 2	- [ ] water the plants | 3	- [ ] write the report
→ Edit {"file_path":"notes.md","old_string":"- [ ] water the plants","new_string":"- [x] water the plants"}
← replaced 1 occurrence(s) in notes.md
→ Bash {"command":"grep -c '\\[x\\]' notes.md && wc -l < notes.md"}
← exit 0: 1 | 3
→ Read {"file_path":"../../etc/passwd"}
→ Bash {"command":"cat /etc/shadow"}
→ Bash {"command":"cat < /dev/tcp/127.0.0.1/22"}
← error: tool Read: denied: the path climbs out of the sandbox: ../../etc/passwd
← exit 1: cat: /etc/shadow: Permission denied
← exit 1: SHELL: socket: Operation not permitted | SHELL: line 1: /dev/tcp/127.0.0.1/22: Operation not permitted
The plants are watered: one of two tasks is done. I stayed inside the workspace.
notes.md now:
# Today
- [x] water the plants
- [ ] write the report
`, "SHELL", shell)
	want = strings.Replace(want, "LABEL", probe.Guarantees().Label, 1)
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
