package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/tools/sandbox"
)

// Read returns numbered lines; a path outside the sandbox is denied.
func ExampleNewRead() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	os.WriteFile(dir+"/hello.txt", []byte("hello\nworld\n"), 0o644)
	sb, err := sandbox.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	read, err := sandbox.NewRead(sb)
	if err != nil {
		log.Fatal(err)
	}
	tc := helikon.NewToolContext(context.Background(), nil, "c1", "Read")
	out, _ := read.Call(tc, []byte(`{"file_path":"hello.txt","offset":2}`))
	fmt.Println(string(out.Content))
	_, err = read.Call(tc, []byte(`{"file_path":"../etc/passwd"}`))
	fmt.Println(errors.Is(err, helikon.ErrToolDenied), err)
	// Output:
	// "2\tworld\n"
	// true tool Read: denied: the path climbs out of the sandbox: ../etc/passwd
}
