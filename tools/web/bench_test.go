package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/paigasus/helikon"
	"github.com/paigasus/helikon/internal/benchpair"
)

// benchFetch pairs WebFetch of page with http.Get and io.ReadAll of it
// from the same httptest server. The guard is off: the server is on
// loopback, which it refuses (BenchmarkSSRFGuard measures it).
func benchFetch(b *testing.B, contentType, page string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, page)
	}))
	defer srv.Close()
	f, err := NewFetch(WithoutSSRFGuard())
	if err != nil {
		b.Fatal(err)
	}
	args, _ := json.Marshal(FetchArgs{URL: srv.URL + "/page"})
	tc := helikon.NewToolContext(b.Context(), nil, "c1", "WebFetch")
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	benchpair.Run(b, "get", func() {
		resp, err := http.Get(srv.URL + "/page")
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || len(body) != len(page) {
			b.Fatal(len(body), err)
		}
	}, "fetch", func() {
		if _, err := f.Call(tc, args); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkWebFetchArticle fetches an HTML article and reduces it to
// Markdown (Readability, then HTML to Markdown).
func BenchmarkWebFetchArticle(b *testing.B) {
	benchFetch(b, "text/html; charset=utf-8", articleHTML)
}

// BenchmarkWebFetchPlain fetches 64 KiB of text, which passes through:
// the tool's own cost over the bare GET.
func BenchmarkWebFetchPlain(b *testing.B) {
	benchFetch(b, "text/plain", strings.Repeat("The tides of Helikon rise twice a day.\n", 64<<10/39))
}

// BenchmarkSSRFGuard runs every check the guard makes on one fetch of a
// named host (scheme and spelling, the resolved answers, the address at
// dial time) beside url.Parse of the same URL.
func BenchmarkSSRFGuard(b *testing.B) {
	f, err := NewFetch(WithResolver(staticResolver{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("2606:2800:21f:cb07:6820:80da:af6b:8b2c")}))
	if err != nil {
		b.Fatal(err)
	}
	const raw = "https://www.example.com/a/page?q=1"
	ctx := context.Background()
	b.ReportAllocs()
	benchpair.Run(b, "parse", func() {
		if _, err := url.Parse(raw); err != nil {
			b.Fatal(err)
		}
	}, "guard", func() {
		u, err := url.Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.checkURL(u); err != nil {
			b.Fatal(err)
		}
		if err := f.precheck(ctx, u); err != nil {
			b.Fatal(err)
		}
		if err := f.control("tcp4", "93.184.215.14:443", nil); err != nil {
			b.Fatal(err)
		}
	})
}

// The guard refuses in the benchmark's terms too: a check that passed
// everything would make BenchmarkSSRFGuard meaningless.
func TestSSRFGuard_BenchmarkChecksRefuseAPrivateAnswer(t *testing.T) {
	f, err := NewFetch(WithResolver(staticResolver{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.0.0.1")}))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://www.example.com/")
	if err := f.precheck(context.Background(), u); err == nil {
		t.Error("precheck passed a private answer")
	}
	if err := f.control("tcp4", "169.254.169.254:80", nil); err == nil {
		t.Error("control passed the metadata address")
	}
	if err := f.control("tcp6", fmt.Sprintf("[%s]:443", "::ffff:127.0.0.1"), nil); err == nil {
		t.Error("control passed a mapped loopback")
	}
}
