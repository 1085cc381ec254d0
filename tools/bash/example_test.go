//go:build unix

package bash_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/paigasus/helikon/tools/bash"
	"github.com/paigasus/helikon/tools/sandbox"
)

// A HostBackend runs commands in the sandbox directory under the default
// resource limits; the result carries the exit code and both streams.
func ExampleNewHostBackend() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	sb, err := sandbox.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	backend, err := bash.NewHostBackend(sb)
	if err != nil {
		log.Fatal(err)
	}
	res, err := backend.Run(context.Background(), bash.Request{Command: "echo hello > f && cat f; echo warn >&2; exit 2"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("exit %d, stdout %q, stderr %q\n", res.ExitCode, res.Stdout, res.Stderr)
	fmt.Println("filesystem isolation:", backend.Guarantees().Filesystem)
	// Output:
	// exit 2, stdout "hello\n", stderr "warn\n"
	// filesystem isolation: none
}
