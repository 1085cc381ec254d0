package devui_test

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/paigasus/helikon/internal/browsertest"
)

// missingGlyphs draws each character of the JSON array chars in the
// timeline's font and returns those that draw like a character no font
// has: the box a browser shows for a missing glyph.
const missingGlyphs = `((chars) => {
	const item = document.querySelector("#timeline") || document.body;
	const c = document.createElement("canvas");
	c.width = c.height = 48;
	const g = c.getContext("2d");
	g.font = "24px " + getComputedStyle(item).fontFamily;
	const draw = (ch) => {
		g.clearRect(0, 0, 48, 48);
		g.fillText(ch, 4, 32);
		return Array.from(g.getImageData(0, 0, 48, 48).data).join();
	};
	const none = draw("\u{10FFFD}"); // a private-use code point: no font draws it
	return chars.filter((ch) => draw(ch) === none);
})`

// TestBrowser_EveryCharacterTheUIShowsHasAGlyph draws every non-ASCII
// character of the UI's script and style sheet (the timeline's icons, the
// separators) in the page's own font, and fails on any that Chromium can
// only show as a missing-glyph box: with Debian's DejaVu fonts alone, ⛔
// and ⧉ did (the guardrail and agent tool icons).
func TestBrowser_EveryCharacterTheUIShowsHasAGlyph(t *testing.T) {
	t.Parallel()
	var chars []string
	for _, name := range []string{"assets/app.js", "assets/style.css"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range string(src) {
			if s := string(r); r > 0x7f && !slices.Contains(chars, s) {
				chars = append(chars, s)
			}
		}
	}
	if len(chars) < 10 {
		t.Fatalf("found %d non-ASCII characters in the assets, want the timeline's icons among them: %q", len(chars), chars)
	}
	f := newFixture(t)
	ctx := browsertest.Open(t, nil)
	browsertest.Do(t, ctx, "load", chromedp.Navigate(f.ts.URL+"/ui/"), browsertest.Until(`document.body.dataset.ready === "true"`))
	list, err := json.Marshal(chars)
	if err != nil {
		t.Fatal(err)
	}
	if missing := browsertest.Eval[[]string](t, ctx, missingGlyphs+"("+string(list)+")"); len(missing) > 0 {
		t.Fatalf("no font on this machine draws %q (of %q): pick characters its fonts have (fc-list \":charset=HEX\")", missing, chars)
	}
}
