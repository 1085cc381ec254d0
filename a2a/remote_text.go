package a2a

import (
	"strconv"

	"github.com/paigasus/helikon/internal/textcut"
)

// maxRemoteText bounds the remote text an error string quotes.
const maxRemoteText = 256

// quoteRemote returns text a remote sent, for an error string: cut to
// [maxRemoteText] bytes (marked with "..." past the quote) and quoted, so
// a newline or a terminal escape in it cannot forge a log line and a long
// one cannot flood a log.
func quoteRemote(s string) string {
	head, cut := textcut.Prefix(s, maxRemoteText)
	if !cut {
		return strconv.Quote(s)
	}
	return strconv.Quote(head) + "..."
}

// quotedError is an error whose text may hold a remote's (a decoder's
// error quotes the input it choked on): its text is quoted and cut, and
// it unwraps to the error.
type quotedError struct{ err error }

func (e quotedError) Error() string { return quoteRemote(e.err.Error()) }

func (e quotedError) Unwrap() error { return e.err }
