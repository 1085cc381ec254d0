package redis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/paigasus/helikon"
)

// errMalformedReply reports a reply that is not the RESP of the command
// that was sent, or that holds something other than the session's events.
var errMalformedReply = fmt.Errorf("%w: malformed reply", helikon.ErrSessionCorrupt)

// replyError is an error the server replied with, kept as the raw reply
// keeps it.
type replyError string

func (e replyError) Error() string { return string(e) }

// RedisError marks e as the server's reply, as go-redis's own errors are.
func (replyError) RedisError() {}

// redirect reports a cluster's reply that the command must go elsewhere or
// wait: go-redis handles these for the commands it parses.
func (e replyError) redirect() bool {
	for _, p := range []string{"MOVED ", "ASK ", "TRYAGAIN", "CLUSTERDOWN"} {
		if strings.HasPrefix(string(e), p) {
			return true
		}
	}
	return false
}

// isReply reports an error reply of the server's that starts with code:
// "WRONGTYPE" for a command of one data type on a key of another (a list
// read of a session stored as a stream, or the reverse), or one of the
// codes the package's scripts reply with.
func isReply(err error, code string) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), code)
}

// resp reads RESP values from the front of b. Every length is checked
// against what remains, so a malformed reply is an error, never a read out
// of bounds.
type resp struct{ b []byte }

// line returns the text after the type byte up to CRLF and moves past it.
func (r *resp) line(typ byte) ([]byte, error) {
	if len(r.b) == 0 || r.b[0] != typ {
		return nil, errMalformedReply
	}
	for i := 1; i+1 < len(r.b); i++ {
		if r.b[i] == '\r' {
			if r.b[i+1] != '\n' {
				return nil, errMalformedReply
			}
			l := r.b[1:i]
			r.b = r.b[i+2:]
			return l, nil
		}
	}
	return nil, errMalformedReply
}

// reply reads the header of the array a command replied with and returns
// its length, or the error the server replied with instead.
func (r *resp) reply() (int, error) {
	if len(r.b) > 0 && (r.b[0] == '-' || r.b[0] == '!') {
		return 0, r.serverError()
	}
	return r.aggregate('*')
}

// aggregate reads the header of an aggregate of type typ and returns its
// element count (pairs, for a map).
func (r *resp) aggregate(typ byte) (int, error) {
	l, err := r.line(typ)
	if err != nil {
		return 0, err
	}
	n, err := parseInt(l)
	// Every element takes at least 4 bytes ("$0\r\n" or more), so a count
	// the rest of the reply cannot hold is malformed.
	if err != nil || n < 0 || n > int64(len(r.b)/4) {
		return 0, errMalformedReply
	}
	return int(n), nil
}

// fields reads the header of an entry's field list, an array in RESP2 and
// in Redis's RESP3 replies (a map is accepted too), and returns its number
// of field-value pairs.
func (r *resp) fields() (int, error) {
	if len(r.b) > 0 && r.b[0] == '%' {
		return r.aggregate('%')
	}
	n, err := r.aggregate('*')
	if err != nil || n%2 != 0 {
		return 0, errMalformedReply
	}
	return n / 2, nil
}

// bulk reads a bulk string.
func (r *resp) bulk() ([]byte, error) { return r.bulkOf('$') }

// bulkOf reads a length-prefixed value of type typ: a bulk string ('$')
// or a blob error ('!').
func (r *resp) bulkOf(typ byte) ([]byte, error) {
	l, err := r.line(typ)
	if err != nil {
		return nil, err
	}
	n, err := parseInt(l)
	if err != nil || n < 0 || n > int64(len(r.b))-2 {
		return nil, errMalformedReply
	}
	v := r.b[:n:n]
	if r.b[n] != '\r' || r.b[n+1] != '\n' {
		return nil, errMalformedReply
	}
	r.b = r.b[n+2:]
	return v, nil
}

// end checks that nothing follows the reply.
func (r *resp) end() error {
	if len(r.b) != 0 {
		return errors.Join(errMalformedReply, errors.New("bytes after the reply"))
	}
	return nil
}

// serverError returns the error reply at the front of r.
func (r *resp) serverError() error {
	if r.b[0] == '!' {
		msg, err := r.bulkOf('!')
		if err != nil {
			return err
		}
		return replyError(msg)
	}
	msg, err := r.line('-')
	if err != nil {
		return err
	}
	return replyError(msg)
}

// parseInt parses a non-negative decimal int64 without allocating.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, errMalformedReply
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errMalformedReply
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}
