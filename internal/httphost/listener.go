package httphost

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// Listener returns ln with every connection it accepts watched for the
// plain-text rejections net/http writes itself, before any handler runs,
// when it cannot read a request: 431 for headers past the server's
// MaxHeaderBytes, 400 for a malformed request, 501 for an unknown transfer
// coding. Each is rewritten, status kept, into the JSON error shape, so a
// client of a host sees one error format whatever refused its request.
//
// Why a connection wrapper: net/http writes these answers straight to the
// connection (server.go, conn.serve) and offers no hook to shape them, and
// reading the headers ourselves would mean parsing HTTP twice. A
// rejection is recognised as one Write that starts with "HTTP/1.1 ",
// whose only headers are exactly net/http's two ("Content-Type:
// text/plain; charset=utf-8", "Connection: close"). A handler's response
// never looks like that: net/http always gives it a Date header (the
// hosts never remove it) and writes its status line and headers in one
// buffered Write.
func Listener(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return conn{c}, nil
}

// conn rewrites net/http's own rejections; everything else passes
// through.
type conn struct{ net.Conn }

func (c conn) Write(p []byte) (int, error) {
	if out, ok := rewriteRejection(p); ok {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite half-closes, as net/http does after a 431 so the client can
// read the answer while it is still sending: without it net/http would
// close outright.
func (c conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// rejectionHeaders is exactly what net/http's conn.serve writes between
// the status line and the body of a rejection.
const rejectionHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// rewriteRejection returns the JSON form of p when p is one of net/http's
// plain-text rejections.
func rewriteRejection(p []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok {
		return nil, false
	}
	// Only the status line is scanned, so an ordinary response write
	// costs a prefix check and one short search.
	eol := bytes.IndexByte(rest, '\r')
	if eol < 4 || rest[3] != ' ' || !bytes.HasPrefix(rest[eol:], []byte(rejectionHeaders)) {
		return nil, false
	}
	statusLine, text := rest[:eol], rest[eol+len(rejectionHeaders):]
	status, err := strconv.Atoi(string(statusLine[:3]))
	if err != nil || status < 400 || status > 599 {
		return nil, false
	}
	e := Errorf(status, CodeBadRequest, "", rejectionMessage(status, string(text)))
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		e.Code = CodeHeaderTooLarge
	case http.StatusNotImplemented:
		e.Code = CodeNotImplemented
	}
	body, err := json.Marshal(ErrorBody{Error: e})
	if err != nil {
		return nil, false
	}
	body = append(body, '\n')
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 ")
	b.Write(statusLine)
	b.WriteString("\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ")
	b.WriteString(strconv.Itoa(len(body)))
	b.WriteString("\r\n\r\n")
	b.Write(body)
	return b.Bytes(), true
}

// rejectionMessage turns net/http's body ("431 Request Header Fields Too
// Large", "400 Bad Request: missing required Host header", "Unsupported
// transfer encoding") into a message in the hosts' style.
func rejectionMessage(status int, text string) string {
	prefix := strconv.Itoa(status) + " " + http.StatusText(status)
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		return "the request's headers are too large"
	case text == prefix, text == "":
		return "malformed request"
	}
	if detail, ok := strings.CutPrefix(text, prefix+": "); ok && detail != "" {
		text = detail
	}
	return "malformed request: " + strings.ToLower(text[:1]) + text[1:]
}
