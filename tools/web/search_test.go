package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/paigasus/helikon"
)

// braveResponse has the shape of the Brave Web Search API's
// WebSearchApiResponse (api-dashboard.search.brave.com/docs: GET
// /res/v1/web/search with X-Subscription-Token): the hits are
// web.results, each with title, url and description.
const braveResponse = `{
  "type": "search",
  "query": {"original": "helikon tides", "show_strict_warning": false, "is_navigational": false, "spellcheck_off": true, "country": "us", "more_results_available": true},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}], "top": [], "side": []},
  "web": {
    "type": "search",
    "results": [
      {"title": "Tides of Helikon", "url": "https://example.com/tides", "is_source_local": false, "is_source_both": false, "description": "The tides of <strong>Helikon</strong> rise twice a day.", "page_age": "2026-05-01T00:00:00", "profile": {"name": "Example", "url": "https://example.com", "long_name": "example.com", "img": ""}, "language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic", "meta_url": {"scheme": "https", "netloc": "example.com", "hostname": "example.com", "favicon": "", "path": "› tides"}},
      {"title": "Twin moons", "url": "https://example.org/moons", "is_source_local": false, "is_source_both": false, "description": "Two moons circle the planet.", "language": "en", "family_friendly": true, "type": "search_result", "subtype": "generic"}
    ],
    "family_friendly": true
  }
}`

// tavilyResponse has the shape the Tavily Search API documents for POST
// /search (help.tavily.com, "Tavily Search API"; bearer key): results
// with title, url, content and score, beside query, answer, images and
// response_time.
const tavilyResponse = `{
  "query": "helikon tides",
  "follow_up_questions": null,
  "answer": null,
  "images": [],
  "results": [
    {"title": "Tides of Helikon", "url": "https://example.com/tides", "content": "The tides of Helikon rise twice a day.", "score": 0.91, "raw_content": null},
    {"title": "Twin moons", "url": "https://example.org/moons", "content": "Two moons circle the planet.", "score": 0.72, "raw_content": null}
  ],
  "response_time": 1.09
}`

var wantHits = []SearchResult{
	{Title: "Tides of Helikon", URL: "https://example.com/tides"},
	{Title: "Twin moons", URL: "https://example.org/moons", Snippet: "Two moons circle the planet."},
}

func runSearch(t *testing.T, b SearchBackend, args string) ([]SearchResult, error) {
	t.Helper()
	s, err := NewSearch(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Call(helikon.NewToolContext(t.Context(), nil, "c", "WebSearch"), []byte(args))
	if err != nil {
		return nil, err
	}
	var res []SearchResult
	if err := json.Unmarshal(out.Content, &res); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

func TestBrave_SendsTheDocumentedRequestAndReadsItsResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("X-Subscription-Token") != "brave-key" || r.URL.Query().Get("q") != "helikon tides" || r.URL.Query().Get("count") != "2" {
			http.Error(w, `{"type":"ErrorResponse","error":{"status":422}}`, http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, braveResponse)
	}))
	defer srv.Close()
	b, err := NewBrave(WithAPIKey("brave-key"), WithEndpoint(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	got, err := runSearch(t, b, `{"query":"helikon tides","count":2}`)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]SearchResult(nil), wantHits...)
	want[0].Snippet = "The tides of <strong>Helikon</strong> rise twice a day."
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
}

func TestTavily_SendsTheDocumentedRequestAndReadsItsResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer tvly-key" || json.Unmarshal(b, &body) != nil || body.Query != "helikon tides" || body.MaxResults != 5 {
			http.Error(w, `{"detail":{"error":"Unauthorized: missing or invalid API key."}}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, tavilyResponse)
	}))
	defer srv.Close()
	tv, err := NewTavily(WithAPIKey("tvly-key"), WithEndpoint(srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	got, err := runSearch(t, tv, `{"query":"helikon tides"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]SearchResult(nil), wantHits...)
	want[0].Snippet = "The tides of Helikon rise twice a day."
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
	bad, _ := NewTavily(WithAPIKey("wrong"), WithEndpoint(srv.URL))
	if _, err := runSearch(t, bad, `{"query":"helikon tides"}`); kindOf(err) != helikon.ToolFailed {
		t.Errorf("a 401: err = %v, want Failed", err)
	}
}

func TestSearch_BadInputAndBadBackends(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/garbage":
			fmt.Fprint(w, `{"results": [`)
		case "/huge":
			w.Write(make([]byte, maxSearchResponse+10))
		case "/empty":
			fmt.Fprint(w, `{}`)
		}
	}))
	defer srv.Close()
	b, _ := NewBrave(WithAPIKey("k"), WithEndpoint(srv.URL+"/garbage"))
	for _, args := range []string{`{"query":""}`, `{"query":"x","count":21}`, `{"query":"x","count":-1}`, `{}`, `{"query":`} {
		if _, err := runSearch(t, b, args); kindOf(err) != helikon.ToolInvalidArgs {
			t.Errorf("%s: err = %v, want InvalidArgs", args, err)
		}
	}
	for _, path := range []string{"/garbage", "/huge"} {
		b, _ := NewBrave(WithAPIKey("k"), WithEndpoint(srv.URL+path))
		if _, err := runSearch(t, b, `{"query":"x"}`); kindOf(err) != helikon.ToolFailed {
			t.Errorf("brave %s: err = %v, want Failed", path, err)
		}
	}
	tv, _ := NewTavily(WithAPIKey("k"), WithEndpoint(srv.URL+"/empty"))
	if _, err := runSearch(t, tv, `{"query":"x"}`); kindOf(err) != helikon.ToolFailed {
		t.Errorf("tavily without results: err = %v, want Failed", err)
	}
	b, _ = NewBrave(WithAPIKey("k"), WithEndpoint(srv.URL+"/empty"))
	if got, err := runSearch(t, b, `{"query":"x"}`); err != nil || len(got) != 0 {
		t.Errorf("brave with no web section: %v, %v", got, err)
	}
	t.Setenv("BRAVE_API_KEY", "")
	t.Setenv("TAVILY_API_KEY", "")
	if _, err := NewBrave(); err == nil {
		t.Error("NewBrave without a key: no error")
	}
	if _, err := NewTavily(); err == nil {
		t.Error("NewTavily without a key: no error")
	}
	if _, err := NewSearch(nil); err == nil {
		t.Error("NewSearch(nil): no error")
	}
}
