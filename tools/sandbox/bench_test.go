package sandbox

import (
	"strings"
	"testing"

	"github.com/paigasus/helikon/internal/benchpair"
)

// BenchmarkRead4KiB pairs a Read of a 4 KiB text file (checks, numbering,
// binary sniff) with reading the same file through os.Root directly.
func BenchmarkRead4KiB(b *testing.B) {
	f := newFixture(b)
	defer f.sb.Close()
	line := strings.Repeat("x", 63) + "\n"
	content := strings.Repeat(line, 64)
	if err := f.sb.Root().WriteFile("a.txt", []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	r, err := NewRead(f.sb)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	benchpair.Run(b, "osroot", func() {
		if _, err := f.sb.Root().ReadFile("a.txt"); err != nil {
			b.Fatal(err)
		}
	}, "read", func() {
		if _, err := r.read(ReadArgs{FilePath: "a.txt"}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkEditSmallFile pairs an Edit of a 4 KiB file (checks, atomic
// write with fsync and rename) with a read, replace and in-place write
// through os.Root directly, which also fsyncs, so the pair differs by what
// the tool adds.
func BenchmarkEditSmallFile(b *testing.B) {
	f := newFixture(b)
	defer f.sb.Close()
	content := "package x\n\nvar marker = 0\n" + strings.Repeat("// filler line of a small source file\n", 100)
	for _, p := range []string{"a.go", "b.go"} {
		if err := f.sb.Root().WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root := f.sb.Root()
	flip := []string{"var marker = 0", "var marker = 1"}
	i := 0
	b.ReportAllocs()
	benchpair.Run(b, "osroot", func() {
		data, err := root.ReadFile("b.go")
		if err != nil {
			b.Fatal(err)
		}
		out := strings.Replace(string(data), flip[i%2], flip[(i+1)%2], 1)
		w, err := root.Create("b.go")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.WriteString(out); err != nil {
			b.Fatal(err)
		}
		if err := w.Sync(); err != nil {
			b.Fatal(err)
		}
		w.Close()
	}, "edit", func() {
		if _, err := f.sb.edit("Edit", "a.go", []Replacement{{OldString: flip[i%2], NewString: flip[(i+1)%2]}}, DefaultWriteMaxBytes); err != nil {
			b.Fatal(err)
		}
		i++
	})
}
