package main

import (
	"context"
	"fmt"
	"github.com/situate/situate/internal/testskip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/situate/situate"
	"github.com/situate/situate/sqlite"
)

// Environment variables of the browser test.
const (
	// envChromium names the Chromium binary (default: chromium on PATH).
	envChromium = "SITUATE_CHROMIUM"
	// envRequireChromium, when set, turns a missing Chromium into a failure
	// (.ci/run sets it after installing Debian's chromium).
	envRequireChromium = "SITUATE_REQUIRE_CHROMIUM"
	// envScreenshots is where the screenshots go (default: the test's
	// temporary directory).
	envScreenshots = "SITUATE_SCREENSHOTS"
)

func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envChromium); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH (apt-get install chromium, or set " + envChromium + "): the browser test needs headless Chromium"
	if os.Getenv(envRequireChromium) != "" {
		t.Fatalf("%s (%s is set)", msg, envRequireChromium)
	}
	testskip.Skipf(t, "%s", msg)
	return ""
}

// hostileText is a document whose text is markup: the page must show it as
// text, never run or render it.
const hostileText = "Quarantined markup sample.\n\n<script>window.__pwned = 'script'</script>\n\n" +
	"<img src=x onerror=\"window.__pwned = 'img'\">\n\n<b>not bold</b> &amp; <a href=\"javascript:alert(1)\">link</a>\n"

const brightwater = `# Brightwater Logistics: Annual Review

Brightwater Logistics moves timber and grain by barge along the Calder.

## Financial Results

Revenue grew 3% in the third quarter, slower than planned, because a six-week closure of the Ashby Weir lock pushed cargo onto trucks.

## Outlook

Management expects revenue growth of 4 to 5 percent next year, with two electric barges entering service.
`

// TestWebPageInChromium drives the page served by a real `situate serve` in
// headless Chromium: upload a document and wait for its job, search, see the
// generated context set apart from the original text, open the explain
// view, and check that a document made of markup renders as text. It keeps
// screenshots at laptop (1366×768) and phone (390×844) widths.
func TestWebPageInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve and Chromium (about 10 s)")
	}
	chrome := chromiumPath(t)
	shots := os.Getenv(envScreenshots)
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	wantShare := seedUsage(t, store)
	seedFlagged(t, store)
	s := startServe(t, dir, store)
	upload := filepath.Join(dir, "brightwater.md")
	if err := os.WriteFile(upload, []byte(brightwater), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, pageErrors := startBrowser(t, chrome)
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			if _, err := chromedp.Evaluate[bool](`window.scrollTo(0, 0), true`)(ctx, tg); err != nil {
				return chromedp.Void{}, err
			}
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return chromedp.Void{}, err
			}
			return chromedp.Void{}, os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644)
		}
	}
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.log())
		}
	}
	text := func(sel string) string {
		t.Helper()
		out, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return out
	}

	// Upload a file and wait for its job.
	run("load the documents view",
		chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(s.URL+"/#/documents"),
		chromedp.WaitVisible(chromedp.CSS("#upload-form")),
		chromedp.SetUploadFiles(chromedp.CSS("#upload-file"), []string{upload}),
		chromedp.SetValue(chromedp.CSS(`#upload-form [name=title]`), "Brightwater Logistics: Annual Review"),
		chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#jobs .job[data-state="done"]`)),
	)
	if job := text("#jobs .job"); !strings.Contains(job, "brightwater.md") || !strings.Contains(job, "done") {
		t.Errorf("job card: %q", job)
	}
	// The hostile document, pasted as text.
	run("upload the markup document",
		chromedp.SetValue(chromedp.CSS("#upload-id"), "hostile.txt"),
		chromedp.SetValue(chromedp.CSS(`#upload-form [name=text]`), hostileText),
		chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll('#jobs .job[data-state="done"]').length >= 2`, chromedp.WithPollingTimeout(60*time.Second)),
	)
	run("wait for both documents in the list",
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#doc-table tbody tr").length >= 3`, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Click(chromedp.CSS(`#doc-table tbody tr[data-doc="brightwater.md"] a`)),
		chromedp.WaitVisible(chromedp.CSS("#context-status")),
		shot("documents-laptop"),
	)
	if st := text("#context-status"); !strings.Contains(st, "by offline") || !strings.Contains(st, "0 flagged") {
		t.Errorf("contextualization status: %q", st)
	}
	// Flagged contexts: counted, marked, and listed alone on request.
	run("a document with a flagged context",
		chromedp.Click(chromedp.CSS(`#doc-table tbody tr[data-doc="ledger.md"] a`)),
		chromedp.Poll[chromedp.Void](`(document.querySelector("#context-status") || {}).textContent?.includes("anthropic")`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if st := text("#context-status"); !strings.Contains(st, "2 by anthropic:claude-haiku-4-5") || !strings.Contains(st, "1 flagged") {
		t.Errorf("contextualization status of the flagged document: %q", st)
	}
	run("show flagged contexts only",
		chromedp.Click(chromedp.CSS("#only-flagged")),
		shot("flagged-laptop"),
	)
	type flaggedView struct {
		Chunks int
		Badge  string
	}
	fv := evalJS[flaggedView](t, ctx, `({Chunks: document.querySelectorAll("#doc-detail .chunk-item").length,
		Badge: document.querySelector("#doc-detail .chunk-item .context.flagged .badge.warn").textContent})`)
	if fv.Chunks != 1 || fv.Badge != "flagged: unknown-number:42" {
		t.Errorf("flagged only: %d chunks, badge %q", fv.Chunks, fv.Badge)
	}

	// Search: the context is set apart from the original text and labelled.
	run("search",
		chromedp.Navigate(s.URL+"/#/search"),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "Brightwater revenue third quarter\n"),
		chromedp.WaitVisible(chromedp.CSS("#results .result")),
		shot("search-laptop"),
	)
	type firstResult struct {
		Label, Context, Text, Marks string
		Inside                      bool
	}
	res := evalJS[firstResult](t, ctx, `(() => {
		const r = document.querySelector("#results .result");
		const ctx = r.querySelector("aside.context");
		const text = r.querySelector(".chunk .text");
		return {Label: ctx.querySelector(".label").textContent, Context: ctx.querySelector(".context-text").textContent,
			Text: text.textContent, Marks: [...text.querySelectorAll("mark")].map(m => m.textContent).join(","),
			Inside: text.contains(ctx) || ctx.contains(text)};
	})()`)
	if !strings.Contains(res.Label, "Generated context") || !strings.Contains(res.Label, "written by offline") {
		t.Errorf("context label %q", res.Label)
	}
	if res.Context == "" || res.Inside || strings.Contains(res.Text, res.Context) {
		t.Errorf("context not set apart: context %q, text %q", res.Context, res.Text)
	}
	if !strings.Contains(res.Text, "Revenue grew 3% in the third quarter") {
		t.Errorf("first result's text %q", res.Text)
	}
	if !strings.Contains(res.Marks, "Revenue") || !strings.Contains(res.Marks, "quarter") {
		t.Errorf("highlighted terms %q", res.Marks)
	}

	// The explain view: each arm's rank and score.
	run("open the explain view",
		chromedp.Click(chromedp.CSS("#tab-explain")),
		chromedp.WaitVisible(chromedp.CSS("#explain table")),
		shot("explain-laptop"),
	)
	if row := text("#explain tbody tr"); !strings.Contains(row, "brightwater.md") || !strings.Contains(row, "#1") {
		t.Errorf("explain row: %q", row)
	}

	// Markup in a document is text.
	run("back to the results", chromedp.Click(chromedp.CSS("#tab-results")))
	evalJS[string](t, ctx, `(document.querySelector("#q").value = "")`)
	run("search the markup document",
		chromedp.SendKeys(chromedp.CSS("#q"), "quarantined markup sample onerror\n"),
		chromedp.WaitVisible(chromedp.CSS(`#results .result`)),
		chromedp.Poll[chromedp.Void](`document.querySelector("#results .result .text").textContent.includes("<script>")`, chromedp.WithPollingTimeout(10*time.Second)),
		shot("hostile-laptop"),
	)
	type hostileResult struct {
		Text                  string
		Scripts, Imgs, Anchor int
		Pwned                 any
	}
	hostile := evalJS[hostileResult](t, ctx, `(() => {
		const t = document.querySelector("#results .result .text");
		return {Text: t.textContent, Scripts: document.querySelectorAll("#results script").length,
			Imgs: document.querySelectorAll("#results img").length, Anchor: t.querySelectorAll("a, b").length,
			Pwned: window.__pwned ?? null};
	})()`)
	for _, want := range []string{"<script>window.__pwned = 'script'</script>", `<img src=x onerror="window.__pwned = 'img'">`, "<b>not bold</b>"} {
		if !strings.Contains(hostile.Text, want) {
			t.Errorf("the markup document's text lacks %q as text: %q", want, hostile.Text)
		}
	}
	if hostile.Scripts != 0 || hostile.Imgs != 0 || hostile.Anchor != 0 || hostile.Pwned != nil {
		t.Errorf("markup was interpreted: %d scripts, %d imgs, %d a/b elements, window.__pwned=%v", hostile.Scripts, hostile.Imgs, hostile.Anchor, hostile.Pwned)
	}

	// Keyboard: "/" focuses the search box from anywhere.
	run("slash focuses the query",
		chromedp.Navigate(s.URL+"/#/documents"),
		chromedp.WaitVisible(chromedp.CSS("#upload-form")),
		chromedp.KeyEvent("/"),
		chromedp.Sleep(200*time.Millisecond),
	)
	focused := evalJS[string](t, ctx, `document.activeElement ? document.activeElement.id : ""`)
	if focused != "q" {
		t.Errorf("after '/', focus is on %q, want the query box", focused)
	}

	// The usage view: the recorded calls by day as a chart.
	run("usage view",
		chromedp.Navigate(s.URL+"/#/usage"),
		chromedp.WaitVisible(chromedp.CSS("#usage svg.chart")),
		shot("usage-laptop"),
	)
	type usageView struct {
		Bars, Rects int
		Share       string
	}
	uv := evalJS[usageView](t, ctx, `({Bars: document.querySelectorAll("#usage svg .bar").length,
		Rects: document.querySelectorAll("#usage svg .bar rect").length,
		Share: [...document.querySelectorAll("#usage .tile")].find(t => t.textContent.includes("Cache-read share")).querySelector(".tile-value").textContent})`)
	if uv.Bars != 30 || uv.Rects < 10*4 || uv.Share != wantShare {
		t.Errorf("usage view: %d day bars (want 30), %d token rects (want >= 40), cache-read share %q (want %q)", uv.Bars, uv.Rects, uv.Share, wantShare)
	}

	// Phone width: the same views without horizontal scrolling.
	run("phone width",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(s.URL+"/#/search"),
		chromedp.WaitVisible(chromedp.CSS("#q")),
	)
	evalJS[string](t, ctx, `(document.querySelector("#q").value = "")`)
	run("phone search",
		chromedp.SendKeys(chromedp.CSS("#q"), "Brightwater revenue third quarter\n"),
		chromedp.Poll[chromedp.Void](`/for “Brightwater revenue third quarter” in/.test(document.querySelector("#search-summary").textContent)`, chromedp.WithPollingTimeout(10*time.Second)),
		shot("search-phone"),
		chromedp.Click(chromedp.CSS("#tab-explain")),
		chromedp.WaitVisible(chromedp.CSS("#explain table")),
		shot("explain-phone"),
	)
	if wide := evalJS[string](t, ctx, wider390); wide != "" {
		t.Errorf("the explain view is wider than 390 px: %s", wide)
	}
	run("phone usage",
		chromedp.Navigate(s.URL+"/#/usage"),
		chromedp.WaitVisible(chromedp.CSS("#usage svg.chart")),
		shot("usage-phone"),
	)
	if wide := evalJS[string](t, ctx, wider390); wide != "" {
		t.Errorf("the usage view is wider than 390 px: %s", wide)
	}
	run("phone documents",
		chromedp.Navigate(s.URL+"/#/documents"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#doc-table tbody tr").length >= 3`, chromedp.WithPollingTimeout(30*time.Second)),
		shot("documents-phone"),
	)
	// The administrator (no keys: the local tenant) is offered upload.
	if hidden := evalJS[bool](t, ctx, `document.querySelector("#upload-box").hidden`); hidden {
		t.Error("the administrator is not offered the upload form")
	}
	run("phone: a document opened from the list is scrolled to",
		chromedp.Click(chromedp.CSS(`#doc-table tbody tr:last-child a`)),
		chromedp.Poll[chromedp.Void](`(() => { const d = document.querySelector("#doc-detail h2"); if (!d) return false;
			const r = d.getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; })()`, chromedp.WithPollingTimeout(10*time.Second)),
		shot("document-opened-phone"),
	)
	if wide := evalJS[string](t, ctx, wider390); wide != "" {
		t.Errorf("the documents view is wider than 390 px: %s", wide)
	}

	for _, e := range pageErrors() {
		t.Errorf("page error: %s", e)
	}
	t.Logf("screenshots in %s", shots)
}

// startBrowser starts headless Chromium for the test (stopped at its end)
// and returns its tab's context and a func listing the script exceptions
// and console errors (a CSP violation included) the page has had.
func startBrowser(t *testing.T, chrome string) (context.Context, func() []string) {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 768),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancelTimeout)
	var mu sync.Mutex
	var pageErrors []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			pageErrors = append(pageErrors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				pageErrors = append(pageErrors, "console.error: "+strings.Join(parts, " "))
			}
		}
	})
	if err != nil {
		t.Fatalf("start Chromium (%s): %v", chrome, err)
	}
	return ctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), pageErrors...)
	}
}

// seedUsage records ten days of provider calls in the store, as an LLM
// contextualizer would have, and returns the cache-read share the usage
// view should show.
func seedUsage(t *testing.T, store string) string {
	t.Helper()
	ctx := context.Background()
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var input, read, write int
	for i := range 10 {
		u := situate.Usage{Time: today.AddDate(0, 0, -i).Add(time.Hour), Provider: "anthropic", Model: "claude-haiku-4-5",
			Operation: "context", InputTokens: 800 + 100*i, CacheWriteTokens: 3000, CacheReadTokens: 12000 + 2000*(i%4),
			OutputTokens: 250 + 10*i, CostUSD: 0.01 + 0.002*float64(i)}
		input, read, write = input+u.InputTokens, read+u.CacheReadTokens, write+u.CacheWriteTokens
		if err := db.RecordUsage(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%.1f%%", 100*float64(read)/float64(input+read+write))
}

// seedFlagged indexes a document of two chunks whose second context failed
// a check, as the LLM contextualizer leaves them ("unknown-number:42").
func seedFlagged(t *testing.T, store string) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(store, storeFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eng, err := situate.Open(ctx, store, db, situate.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	doc := situate.Document{ID: "ledger.md", Title: "Ledger", Format: situate.FormatMarkdown, Lang: situate.LangEnglish,
		Text: "# Ledger\n\nThe ledger lists every barge.\n\n## Totals\n\nThe totals are audited each spring.\n"}
	chunks := []situate.Chunk{
		{DocID: doc.ID, Index: 0, Start: 0, End: 40, Text: doc.Text[:40], Heading: "Ledger"},
		{DocID: doc.ID, Index: 1, Start: 40, End: len(doc.Text), Text: doc.Text[40:], Heading: "Ledger > Totals"},
	}
	contexts := []situate.Context{
		{Text: "The ledger of Brightwater's barges.", Source: "anthropic:claude-haiku-4-5"},
		{Text: "Totals for 42 barges, audited in spring.", Source: "anthropic:claude-haiku-4-5", Flags: []string{"unknown-number:42"}},
	}
	if _, err := eng.PutChunks(ctx, doc, chunks, contexts); err != nil {
		t.Fatal(err)
	}
}

// wider390 names the first visible element of the page that reaches past
// 390 px (inside a horizontally scrolling table is fine), or "".
const wider390 = `(() => {
	for (const e of document.querySelectorAll("body *")) {
		if (e.closest(".table-wrap") && !e.classList.contains("table-wrap")) continue;
		const r = e.getBoundingClientRect();
		if (r.width > 0 && r.height > 0 && r.right > 391) {
			return e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " right=" + Math.round(r.right);
		}
	}
	return "";
})()`

func evalJS[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// TestWebPageWithKeys: on a server with keys the page asks for one, then
// shows only what the key's principals may read; the usage view is for
// administrators.
func TestWebPageWithKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("starts situate serve and Chromium (a few seconds)")
	}
	chrome := chromiumPath(t)
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	admin := createKey(t, dir, store, "--tenant", "acme", "--admin")
	staff := createKey(t, dir, store, "--tenant", "acme", "--principals", "staff")
	s := startServe(t, dir, store)
	s.upsert(t, admin, "notice.md", map[string]any{"title": "Harbour notice", "format": "markdown",
		"text": "# Harbour notice\n\nThe harbour office opens at nine every weekday."})
	s.upsert(t, admin, "deal.md", map[string]any{"title": "Harbour deal", "format": "markdown", "access": []string{"board"},
		"text": "# Harbour deal\n\nThe harbour sale closes in March for twelve million."})

	ctx, pageErrors := startBrowser(t, chrome)
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v\nserver log:\n%s", what, err, s.log())
		}
	}
	run("the page asks for a key",
		chromedp.Navigate(s.URL+"/#/search"),
		chromedp.WaitVisible(chromedp.CSS("#key-dialog[open] #key-input")),
	)
	run("enter the key",
		chromedp.SendKeys(chromedp.CSS("#key-input"), staff),
		chromedp.Click(chromedp.CSS(`#key-dialog button[value="save"]`)),
		chromedp.Poll[chromedp.Void](`!document.querySelector("#key-dialog").open`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	// (A click first: after a modal dialog, headless Chromium delivers the
	// protocol's key events only once the page has had a pointer event.)
	run("search with the key",
		chromedp.Click(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "harbour\n"),
		chromedp.WaitVisible(chromedp.CSS("#results .result")),
		chromedp.Poll[chromedp.Void](`document.querySelector("#who").textContent === "acme"`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	type view struct {
		Results int
		Body    string
	}
	v := evalJS[view](t, ctx, `({Results: document.querySelectorAll("#results .result").length, Body: document.body.textContent})`)
	if v.Results != 1 || !strings.Contains(v.Body, "Harbour notice") || strings.Contains(v.Body, "Harbour deal") || strings.Contains(v.Body, "twelve million") {
		t.Errorf("staff key: %d results; the page shows the board's document: %v", v.Results, strings.Contains(v.Body, "Harbour deal"))
	}
	run("the documents view lists only the readable document",
		chromedp.Navigate(s.URL+"/#/documents"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#doc-table tbody tr").length >= 1`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if rows := evalJS[string](t, ctx, `document.querySelector("#doc-table tbody").textContent`); !strings.Contains(rows, "Harbour notice") || strings.Contains(rows, "deal") {
		t.Errorf("staff key's documents: %q", rows)
	}
	// What the staff key may not use is not offered: upload (a write
	// key's), usage (an administrator's), dense and hybrid search (no
	// embedder on this server).
	type offered struct {
		Upload, Usage bool
		Modes         []string
	}
	if o := evalJS[offered](t, ctx, `({Upload: !document.querySelector("#upload-box").hidden,
		Usage: !document.querySelector('[data-nav="usage"]').hidden,
		Modes: [...document.querySelectorAll('select[name="mode"] option')].filter((o) => !o.hidden && !o.disabled).map((o) => o.value)})`); o.Upload || o.Usage || strings.Join(o.Modes, ",") != ",bm25" {
		t.Errorf("the staff key is offered %+v, want no upload, no usage, modes default and bm25 only", o)
	}
	run("usage is for administrators",
		chromedp.Navigate(s.URL+"/#/usage"),
		chromedp.WaitVisible(chromedp.CSS("#usage .error")),
	)
	if msg := evalJS[string](t, ctx, `document.querySelector("#usage .error").textContent`); !strings.Contains(msg, "administrator") {
		t.Errorf("usage for a reader: %q", msg)
	}
	for _, e := range pageErrors() {
		t.Errorf("page error: %s", e)
	}
}
