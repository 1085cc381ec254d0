//go:build linux

package bash

import (
	"os/exec"
	"testing"

	"github.com/paigasus/helikon/internal/slowtest"
)

// Normal work inside the workspace still succeeds under the whole
// confinement (run as root: as the sandbox user): pipes, background jobs
// the command waits for, git, Python, and building and running a C
// program. Building a Go program (its first build compiles the standard
// library into a fresh cache, minutes on a loaded machine) runs where
// HELIKON_SLOW_TESTS=1 (CI sets it: internal/slowtest).
func TestOsSandbox_NormalWorkStillSucceeds(t *testing.T) {
	b, _ := osTool(t)
	cases := []struct{ name, need, cmd, want string }{
		{"pipes", "", "seq 1 1000 | sort -rn | head -3 | tr '\\n' ' '", "1000 999 998 "},
		{"background jobs awaited", "", "for i in 1 2 3; do (sleep 0.1; echo $i > job$i) & done; wait; cat job1 job2 job3 | sort | tr -d '\\n'", "123"},
		{"git", "git", "git init -q repo && cd repo && echo hi > f && git add f && git -c user.name=a -c user.email=a@example.com commit -qm first && git log --format=%s", "first\n"},
		{"python3", "/usr/bin/python3", "/usr/bin/python3 -c 'import json,hashlib; print(json.dumps({\"n\": len(hashlib.sha256(b\"x\").hexdigest())}))'", "{\"n\": 64}\n"},
		{"a C program", "gcc", "printf '#include <stdio.h>\\nint main(void){puts(\"built\");return 0;}\\n' > m.c && gcc -o m m.c && ./m", "built\n"},
	}
	if slowtest.Enabled() {
		cases = append(cases, struct{ name, need, cmd, want string }{"a Go program", "go",
			"mkdir -p gp && cd gp && printf 'package main\\nimport \"fmt\"\\nfunc main(){fmt.Println(\"built\")}\\n' > main.go && go mod init example.com/gp >/dev/null 2>&1 && CGO_ENABLED=0 go build -o gp . && ./gp", "built\n"})
	} else {
		t.Log("building a Go program in the sandbox runs with HELIKON_SLOW_TESTS=1")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.need != "" {
				if _, err := exec.LookPath(c.need); err != nil {
					t.Skipf("%s is not installed", c.need)
				}
			}
			r, err := runTool(t, t.Context(), b, Args{Command: c.cmd, TimeoutMS: 600000})
			if err != nil || r.ExitCode != 0 || r.Stdout != c.want {
				t.Errorf("%+v, %v; want stdout %q", r, err, c.want)
			}
		})
	}
}
