package devui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/mock"
	"github.com/paigasus/helikon/server"
	"github.com/paigasus/helikon/server/devui"
)

// The server's option serves the UI at /ui/ and redirects / there.
func Example() {
	agent, err := helikon.NewAgent("greeter", mock.Scripted(mock.Text("hello")))
	if err != nil {
		panic(err)
	}
	srv, err := server.New([]helikon.Agent{agent}, server.WithDevUI())
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown(context.Background())
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	resp, err := http.Get(ts.URL + "/")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Request.URL.Path, resp.Header.Get("Content-Type"))
	// Output: /ui/ text/html; charset=utf-8
}

// The UI and the server mounted side by side under one prefix.
func ExampleNew() {
	agent, err := helikon.NewAgent("greeter", mock.Scripted(mock.Text("hello")))
	if err != nil {
		panic(err)
	}
	srv, err := server.New([]helikon.Agent{agent})
	if err != nil {
		panic(err)
	}
	defer srv.Shutdown(context.Background())
	ui, err := devui.New(devui.WithAPI("/api/")) // where the UI finds the server's routes
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", srv.Handler()))
	mux.Handle("/dev/", http.StripPrefix("/dev", ui))
	ts := httptest.NewServer(mux)
	defer ts.Close()

	for _, path := range []string{"/dev/", "/dev/app.js", "/api/agents"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// Output:
	// /dev/ 200 text/html; charset=utf-8
	// /dev/app.js 200 text/javascript; charset=utf-8
	// /api/agents 200 application/json
}
