package a2a

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrCrossOriginRedirect reports a remote that redirected a request (the
// agent card's, or a JSON-RPC call's) to another origin: another scheme,
// host or port than the request was sent to.
var ErrCrossOriginRedirect = errors.New("a2a: the remote redirected to another origin")

// sameOriginClient returns a copy of c that follows a redirect only within
// the origin of the request that started it, and fails any other with
// [ErrCrossOriginRedirect]. Go's client sends the first request's custom
// headers along a redirect, whatever the host, and a transport that adds
// credentials (the way [WithHTTPClient] says to authenticate) adds them to
// every request it carries: a remote told to redirect elsewhere would hand
// the caller's credentials, and a 307 or 308 the message itself, to a host
// the caller never named. c's own CheckRedirect, when set, still decides on
// the redirects that stay.
func sameOriginClient(c *http.Client) *http.Client {
	sc := *c
	next := c.CheckRedirect
	sc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from, to := origin(via[0].URL), origin(req.URL); from != to {
			return fmt.Errorf("%w: from %s to %s", ErrCrossOriginRedirect, quoteRemote(from), quoteRemote(to))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			// http.Client's own bound, which a CheckRedirect replaces.
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &sc
}

// origin returns u's scheme, host and port, the port spelled out when the
// URL leaves it to the scheme, so that http://h and http://h:80 are one
// origin.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}
