package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// FuzzToMarkdown feeds a fetched page's bytes, which the remote server
// chooses, to the HTML reduction and conversion: whatever the bytes and
// the declared type, it returns text or an error and never panics.
func FuzzToMarkdown(f *testing.F) {
	for _, seed := range []struct{ ct, body string }{
		{"text/html", "<html><head><title>T</title></head><body><article><h1>Hi</h1><p>text <a href=/x>link</a></p></article></body></html>"},
		{"text/html", "<html><body>" + strings.Repeat("<div>", 600) + "deep"},
		{"text/html", "<b><i>misnested</b></i><table><td><p>cell<table>"},
		{"text/html", "<a href='javascript:alert(1)'>x</a><img src=\x00 alt=\xff><script>x</script>"},
		{"", "<HTML><body>no content type</body>"},
		{"application/xhtml+xml", "<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'><body/></html>"},
		{"text/plain", "plain \xff\xfe text"},
		{"application/json", `{"a":[1,2,{"b":null}]}`},
		{"application/octet-stream", "\x00\x01\x02"},
		{"text/html; charset=utf-16", "\xff\xfe<\x00h\x00"},
	} {
		f.Add(seed.ct, []byte(seed.body))
	}
	u, _ := url.Parse("https://example.com/page")
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		resp := &http.Response{Header: http.Header{"Content-Type": {ct}}, Request: &http.Request{URL: u}}
		_, _ = toMarkdown(resp, body)
	})
}
