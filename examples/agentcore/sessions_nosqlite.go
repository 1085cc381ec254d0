//go:build nosqlite

package main

import (
	"context"
	"errors"

	"github.com/paigasus/helikon/agentcore"
)

// sqliteSessions reports that this build left SQLite out.
func sqliteSessions(context.Context, string) (agentcore.SessionProvider, func(), error) {
	return nil, nil, errors.New("built with -tags nosqlite: no SQLite sessions; drop -sessions or rebuild without the tag")
}
