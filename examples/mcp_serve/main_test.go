package main

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestServer_CountsWordsForAnMCPClient(t *testing.T) {
	t.Setenv("HELIKON_PROVIDER", "mock") // the scripted run, whatever the shell selects
	server, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- server.ServeTransport(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ input, want string }{
		{"the quick brown fox", "That text has 4 words."},
		{"", "That text has 0 words."},
		{`say "hi" twice`, "That text has 3 words."},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "word_counter", Arguments: map[string]any{"input": tc.input}})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != tc.want {
			t.Fatalf("input %q: %+v %v, want %q", tc.input, res, err, tc.want)
		}
	}
	cs.Close()
	cancel()
	if err := <-served; err != nil && err != context.Canceled {
		t.Fatal(err)
	}
}
