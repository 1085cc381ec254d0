package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// lineTransport is the go-sdk's newline-delimited JSON transport behind a
// guard. The go-sdk ends the whole session on one line that is not JSON
// (its decoder stops), or not a JSON-RPC message (its read fails), losing
// even replies it owes to requests already read. The guard reads each line
// first, bounded, and answers one that is too long, not JSON, or not a
// JSON-RPC message with a JSON-RPC error (-32600 or -32700, id null unless
// the line had a readable id) instead of passing it on; the session goes
// on. Every line it passes is one JSON value the go-sdk decodes.
type lineTransport struct {
	in     io.Reader
	out    io.Writer
	limit  int
	logger *slog.Logger
}

// Connect implements [sdk.Transport].
func (t *lineTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	w := &lineWriter{w: t.out}
	g := &lineGuard{src: bufio.NewReaderSize(t.in, 64<<10), in: t.in, out: w, limit: t.limit, logger: t.logger}
	// The guard bounds every line, so the go-sdk's own cap is off: the two
	// counting differently must never make it refuse what the guard passed.
	inner, err := (&sdk.IOTransport{Reader: g, Writer: w, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &guardedConn{Connection: inner, guard: g}, nil
}

// lineWriter serialises writes, so that the guard's replies and the
// go-sdk's messages (one Write each) never interleave. Close leaves the
// output open, as the go-sdk leaves stdout.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) Close() error { return nil }

// lineGuard is the reader the go-sdk's transport decodes from: it yields
// only lines that checkMessage accepts, each trimmed and ending in one
// newline, and answers the others itself.
type lineGuard struct {
	src    *bufio.Reader
	in     io.Reader // closed with the connection when it is an io.Closer
	out    *lineWriter
	limit  int
	logger *slog.Logger

	line    []byte // the line being read, reused
	pending []byte // what is left of the line the decoder is reading
	// failed is set once the input fails with anything but io.EOF; the
	// go-sdk's decoder then stops for good.
	failed atomic.Bool
}

// Read implements io.Reader for the go-sdk's decoder: at most one line per
// call, so that the decoder never holds more than the line it decodes.
func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		line, tooLong, err := g.next()
		if tooLong {
			g.answer(invalidRequest(nil, fmt.Sprintf("a message is at most %d bytes", g.limit)), "message too long")
		} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if _, e := checkMessage(trimmed); e != nil {
				g.answer(e, "malformed message")
			} else {
				// trimmed ends before the newline it was read with, so the
				// append stays within line.
				g.pending = append(trimmed, '\n')
			}
		}
		if err != nil && len(g.pending) == 0 {
			if !errors.Is(err, io.EOF) {
				g.failed.Store(true)
			}
			return 0, err
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line, up to and including its newline (the last line may
// have none, with io.EOF). A line longer than the limit is read to its end
// and dropped: tooLong, with no bytes kept.
func (g *lineGuard) next() (line []byte, tooLong bool, err error) {
	if cap(g.line) > 1<<20 {
		g.line = nil // do not keep a large line's buffer for the session's life
	}
	g.line = g.line[:0]
	for {
		chunk, err := g.src.ReadSlice('\n')
		if !tooLong {
			if len(g.line)+len(chunk) > g.limit+2 { // room for "\r\n"
				tooLong, g.line = true, g.line[:0]
			} else {
				g.line = append(g.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return g.line, false, err
	}
}

// answer writes e's reply. A write that fails is left to the go-sdk, whose
// next write fails the same way.
func (g *lineGuard) answer(e *rpcError, what string) {
	g.logger.Warn("mcp: answered a "+what+" on stdio", "code", e.code, "err", e.message)
	_, _ = g.out.Write(append(e.encode(), '\n'))
}

// Close closes the input, as the go-sdk's stdio transport closes stdin, so
// that a read waiting on it can end.
func (g *lineGuard) Close() error {
	if c, ok := g.in.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// guardedConn answers the read errors the go-sdk raises for one message
// the guard passed and the session survives (a batch it refuses, such as
// one reusing the id of a call in flight) and reads on. Any other read
// error ends the session, as before.
type guardedConn struct {
	sdk.Connection
	guard *lineGuard
}

// Read implements [sdk.Connection].
func (c *guardedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err == nil || ctx.Err() != nil || errors.Is(err, io.EOF) || c.guard.failed.Load() {
			return msg, err
		}
		// The guard passed only whole JSON values and the input has not
		// failed, so the go-sdk's decoder is still reading: only this
		// message was refused.
		c.guard.answer(invalidRequest(nil, err.Error()), "refused batch")
	}
}
