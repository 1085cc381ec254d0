package cli

import (
	"fmt"
	"io"
	"sync"
)

// console is where the repl prints. The line editor (chzyer/readline)
// offers a writer that, while it reads a line, erases the prompt, writes,
// and draws the prompt again below; but it decides by a flag its reader
// goroutine clears only some time after the line ends. Everything the repl
// wrote through it right after Enter (a turn's first lines, a command's
// answer) could be taken for output during editing and erased by the next
// redraw: under load a fresh session's whole first answer vanished from the
// screen. So the main goroutine, which prints only while the editor is not
// reading, writes straight to the terminal, and the editor's writer serves
// the watcher alone, and only while the main goroutine waits for a line.
type console struct {
	mu sync.Mutex
	// out is the terminal; editor is the line editor's writer.
	out, editor io.Writer
	// editing is set while the main goroutine waits in the line editor.
	editing bool
}

// Write prints p straight to the terminal; the main goroutine's output.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}

// say prints a line from the main goroutine.
func (c *console) say(format string, args ...any) {
	fmt.Fprintf(c, format+"\n", args...)
}

// notify prints a line from another goroutine (the watcher): through the
// line editor while it shows the prompt, so the prompt is drawn again
// below, and straight to the terminal otherwise.
func (c *console) notify(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.out
	if c.editing && c.editor != nil {
		w = c.editor
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// setEditing records whether the main goroutine waits in the line editor.
func (c *console) setEditing(on bool) {
	c.mu.Lock()
	c.editing = on
	c.mu.Unlock()
}
