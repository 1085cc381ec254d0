// Package browsertest drives headless Chromium with chromedp for the dev
// UI's browser tests (server/devui, and cli's test of `helikon serve`):
// one browser per test binary, a fresh browser context per test, waits on
// DOM conditions rather than sleeps, and screenshots kept where
// $HELIKON_SCREENSHOTS says.
//
// Without Chromium a test skips outside CI and fails with CI=true, so CI
// never passes by skipping.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Width and Height are the viewport every tab opens with, the size the
// UI is designed to be readable at.
const (
	Width  = 1280
	Height = 800
)

// chrome is the one headless Chromium the binary's tests share, each in a
// fresh browser context (its own tab, storage and cache): starting a
// browser is the slowest step on a loaded machine.
var chrome struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
	exe    string
}

// Close stops the shared browser; call it from TestMain after m.Run.
func Close() {
	if chrome.cancel != nil {
		chrome.cancel()
	}
}

// Open opens a tab at [Width]×[Height] in a fresh browser context for the
// test, calling listen (if not nil) with the tab's events. The returned
// context bounds the test's browser steps. Without Chromium it skips the
// test outside CI and fails it with CI=true.
func Open(t testing.TB, listen func(ev any)) context.Context {
	t.Helper()
	chrome.once.Do(start)
	if chrome.exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (.ci/run installs it: apt-get install chromium)")
		}
		t.Skip("chromium is not installed: apt-get install chromium")
	}
	if chrome.err != nil {
		t.Fatalf("start chromium: %v", chrome.err)
	}
	copts := []chromedp.ContextOption{chromedp.WithNewBrowserContext()}
	if listen != nil {
		copts = append(copts, chromedp.WithListener(listen))
	}
	ctx, cancelTab := chromedp.NewContext(chrome.ctx, copts...)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	// Generous: the machine may be loaded; this bounds a hang, it times
	// nothing.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func start() {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chrome.exe = p
			break
		}
	}
	if chrome.exe == "" {
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome.exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(Width, Height))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(alloc)
	chrome.ctx, chrome.cancel = ctx, func() { cancelBrowser(); cancelAlloc() }
	// The first step starts the browser, which lives as long as ctx.
	chrome.err = chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height))
}

// Shots is where screenshots go: $HELIKON_SCREENSHOTS (created if
// missing; .ci/run sets it to a directory kept after the run), else a
// temporary directory of the test's.
func Shots(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("HELIKON_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// Screenshot writes the tab's viewport as dir/name.
func Screenshot(t testing.TB, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Until waits for a JavaScript condition on the page (no sleeps: the
// browser checks it on every animation frame).
func Until(cond string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(2*time.Minute))(ctx, t)
		if err != nil {
			err = fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return chromedp.Void{}, err
	}
}

// Do runs steps, failing the test with the page's main markup when one
// fails.
func Do(t testing.TB, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main")))
		t.Fatalf("%s: %v\npage: %.4000s", what, err, html)
	}
}

// Eval evaluates a JavaScript expression on the page.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// Text is the text of the first element sel matches.
func Text(t testing.TB, ctx context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return v
}
