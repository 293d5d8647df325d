package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"golang.org/x/net/html"
)

// findChromium returns the browser to drive: $AISTATUS_CHROME, or the first
// Chromium or Chrome found.
func findChromium() string {
	if p := os.Getenv("AISTATUS_CHROME"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// consoleProblems collects what a page reports as broken: uncaught
// exceptions, console.error and console.assert calls, and browser log
// errors (a failed request, a refused resource).
type consoleProblems struct {
	mu   sync.Mutex
	list []string
}

func (c *consoleProblems) listen(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Listen(ctx, func(ev any) {
		// This runs in the tab's event loop: record and return.
		var problem string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problem = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				problem += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				problem = fmt.Sprintf("console.%s (%d arguments)", ev.Type, len(ev.Args))
			}
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError {
				problem = fmt.Sprintf("log error: %s %s", ev.Entry.Text, ev.Entry.URL)
			}
		}
		if problem != "" {
			c.mu.Lock()
			c.list = append(c.list, problem)
			c.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (c *consoleProblems) check(t *testing.T, where string) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.list {
		t.Errorf("%s: %s", where, p)
	}
	c.list = nil
}

// shownService is a service entry as the page shows it.
type shownService struct{ slug, status, text string }

// onDocument runs f on the root node of the current document. chromedp
// itself asks for the document after each load, which invalidates earlier
// node ids, so f is retried a few times when its node is gone.
func onDocument[T any](ctx context.Context, f func(root cdp.NodeID) (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for range 5 {
		var doc dom.GetDocumentResult
		if doc, err = chromedp.Call(ctx, dom.GetDocument, dom.GetDocumentParams{}); err == nil {
			if v, err = f(doc.Root.NodeID); err == nil {
				return v, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return v, err
}

// documentHTML returns the current DOM, read through the DOM domain so that
// it works with JavaScript disabled too.
func documentHTML(ctx context.Context) (*html.Node, error) {
	outer, err := onDocument(ctx, func(root cdp.NodeID) (string, error) {
		res, err := chromedp.Call(ctx, dom.GetOuterHTML, dom.GetOuterHTMLParams{NodeID: root})
		return res.OuterHTML, err
	})
	if err != nil {
		return nil, err
	}
	return html.Parse(strings.NewReader(outer))
}

// count returns how many elements match a CSS selector, without JavaScript.
func count(ctx context.Context, selector string) (int, error) {
	return onDocument(ctx, func(root cdp.NodeID) (int, error) {
		res, err := chromedp.Call(ctx, dom.QuerySelectorAll, dom.QuerySelectorAllParams{NodeID: root, Selector: selector})
		return len(res.NodeIDs), err
	})
}

func classes(n *html.Node) []string {
	for _, a := range n.Attr {
		if a.Key == "class" {
			return strings.Fields(a.Val)
		}
	}
	return nil
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// servicesShown lists the service entries of the status page.
func servicesShown(doc *html.Node) []shownService {
	var out []shownService
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "li" || !strings.Contains(" "+strings.Join(classes(n), " ")+" ", " svc ") {
			continue
		}
		s := shownService{slug: attrOf(n, "data-slug"), status: attrOf(n, "data-status")}
		for d := range n.Descendants() {
			if d.Type == html.ElementNode && strings.Join(classes(d), " ") == "status-text" {
				s.text = textOf(d)
			}
		}
		out = append(out, s)
	}
	return out
}

// checkServices compares what the page shows with status.json.
func checkServices(t *testing.T, where string, doc *html.Node, status api.StatusDoc) {
	t.Helper()
	shown := servicesShown(doc)
	if len(shown) != len(status.Services) {
		t.Errorf("%s: %d services shown, want %d", where, len(shown), len(status.Services))
	}
	want := map[string]api.Status{}
	for _, s := range status.Services {
		want[s.Slug] = s.Status
	}
	for _, s := range shown {
		if st, ok := want[s.slug]; !ok || s.status != string(st) || s.text != st.Label() {
			t.Errorf("%s: %s shows %q (%s), status.json says %s (%q)", where, s.slug, s.text, s.status, st, st.Label())
		}
	}
}

// screenshot writes a full-page PNG to $AISTATUS_SCREENSHOT_DIR (or the
// system's temporary folder) and logs where.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	dir := os.Getenv("AISTATUS_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "aistatus-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// TestBrowser builds against the fake world with services in several
// states, serves the snapshot and loads the pages in headless Chromium:
// with JavaScript on and off, every service is shown with the status of
// status.json, nothing is reported broken in the console, and the page does
// not overflow a phone's width. It takes screenshots for a human to look at.
// startBrowser starts headless Chromium for the test, ended with it or
// with ctx.
func startBrowser(t *testing.T, ctx context.Context, chrome string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// The sandboxed machine has no network: keep Chromium from trying.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(cancelBrowser)
	return browser
}

func TestBrowser(t *testing.T) {
	t.Parallel()
	chrome := findChromium()
	if chrome == "" {
		t.Skip("no Chromium: install Debian's chromium package (.ci/run does), or set AISTATUS_CHROME")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	world := buildtest.NewWorld(t, cat)
	world.Set("anthropic", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	world.Set("cohere", func(p *buildtest.Page) {
		p.Status = api.Degraded
		p.Incidents = []buildtest.Incident{{ID: "01JCOHERE", Name: "Increased latency on Embed", Severity: api.Minor,
			StartedAt: time.Now().UTC().Add(-20 * time.Minute).Truncate(time.Second)}}
	})
	world.Set("groq", func(p *buildtest.Page) { p.Status = api.PartialOutage })
	world.Set("runway", func(p *buildtest.Page) { p.Status = api.Maintenance })
	world.Set("pinecone", func(p *buildtest.Page) { p.FeedBroken = true })
	catalog := writeCatalog(t, world.Catalog)
	dir := filepath.Join(t.TempDir(), "public")
	addr := freeAddr(t)
	base := "http://" + addr
	// Two cycles, so that today's bars and the uptime figures have data.
	for range 2 {
		if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalog, "--base-url", base, "--timeout", "5s"); code != 0 {
			t.Fatalf("build exited %d: %s", code, out)
		}
	}
	startCommand(t, "serve", "--dir", dir, "--addr", addr, "--catalog", catalog, "--rate-limit", "0", "--access-log=false")
	waitFor(t, base+"/api/v1/status")
	var status api.StatusDoc
	get(t, base+"/api/v1/status").decode(t, &status)
	seen := map[api.Status]bool{}
	for _, s := range status.Services {
		seen[s.Status] = true
	}
	if len(seen) < 5 {
		t.Fatalf("the fake world should produce most statuses, got %v", seen)
	}

	// One bound for everything, so that a broken browser never hangs the suite.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser := startBrowser(t, ctx, chrome)

	// JavaScript on.
	var problems consoleProblems
	problems.listen(t, browser)
	if err := chromedp.Do(browser, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("loading /: %v", err)
	}
	doc, err := documentHTML(browser)
	if err != nil {
		t.Fatal(err)
	}
	checkServices(t, "JS on", doc, status)
	if n, err := count(browser, "#stale[hidden]"); err != nil || n != 1 {
		t.Errorf("fresh data: stale banner hidden %d times (%v), want 1", n, err)
	}
	if n, err := count(browser, "noscript p"); err != nil || n != 0 {
		t.Errorf("JS on: noscript content parsed as %d elements (%v): is JavaScript really on?", n, err)
	}
	screenshot(t, browser, "index.png")

	// What is wrong now leads the page: in the first screenful, above the
	// service cards, naming the services with issues and, after them, the
	// one under maintenance.
	lead, err := chromedp.Run(browser, chromedp.Evaluate[[]float64](`(() => {
		const now = document.querySelector("section.now"), card = document.querySelector("li.svc");
		if (!now || !card) return [];
		return [now.getBoundingClientRect().top, card.getBoundingClientRect().top, now.querySelectorAll("ul.affected li").length];
	})()`))
	if err != nil || len(lead) != 3 {
		t.Fatalf("no \"What is wrong now\" section: %v %v", lead, err)
	}
	if top, card, n := lead[0], lead[1], lead[2]; top >= card || top > 900 || n != 4 {
		t.Errorf("\"What is wrong now\" at %.0fpx (cards from %.0fpx) with %.0f services, want it first, in view, with 4 (anthropic, groq, cohere, runway)", top, card, n)
	}
	// The legend's colours as the browser paints them are all different.
	fills, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".legend rect")].map(r => getComputedStyle(r).fill)`))
	if err != nil || len(fills) != 5 || len(slices.Compact(slices.Sorted(slices.Values(fills)))) != 5 {
		t.Errorf("legend colours %v (%v), want 5 different", fills, err)
	}

	if _, err := chromedp.Call(browser, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
	}); err != nil {
		t.Fatal(err)
	}
	screenshot(t, browser, "index-dark.png")

	// On a phone the page must not scroll sideways (the charts stretch).
	if err := chromedp.Do(browser, chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile), chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	metrics, err := chromedp.Call(browser, page.GetLayoutMetrics, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if w, view := metrics.CSSContentSize.Width, metrics.CSSLayoutViewport.ClientWidth; w > float64(view) {
		t.Errorf("on a 375px screen the page is %.0fpx wide: it overflows", w)
	}
	screenshot(t, browser, "index-mobile.png")

	// The stale banner appears once the data is older than the threshold:
	// pretend the snapshot is from 2020 and let the page re-check.
	stale, err := chromedp.Run(browser, chromedp.Evaluate[bool](`(() => {
		const banner = document.getElementById("stale");
		banner.dataset.generated = "2020-01-01T00:00:00Z";
		document.dispatchEvent(new Event("visibilitychange"));
		return !banner.hidden;
	})()`))
	if err != nil || !stale {
		t.Errorf("stale banner not shown for old data: %v %v", stale, err)
	}

	// A service page.
	if err := chromedp.Do(browser, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/services/cohere")); err != nil {
		t.Fatalf("loading /services/cohere: %v", err)
	}
	svc, err := documentHTML(browser)
	if err != nil {
		t.Fatal(err)
	}
	if text := textOf(svc); !strings.Contains(text, "Cohere status") || !strings.Contains(text, api.Degraded.Label()) ||
		!strings.Contains(text, "Increased latency on Embed") {
		t.Errorf("cohere page: %.400s", text)
	}
	screenshot(t, browser, "service.png")
	problems.check(t, "JS on")

	// JavaScript off, in a new tab: the static page still shows everything.
	tab, cancelTab := chromedp.NewContext(browser)
	defer cancelTab()
	var noJS consoleProblems
	noJS.listen(t, tab)
	if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/")); err != nil {
		t.Fatalf("loading / without JavaScript: %v", err)
	}
	if n, err := count(tab, "noscript p"); err != nil || n != 1 {
		t.Errorf("JS off: the noscript note is %d elements (%v), want 1", n, err)
	}
	doc, err = documentHTML(tab)
	if err != nil {
		t.Fatal(err)
	}
	checkServices(t, "JS off", doc, status)
	if n, err := count(tab, "#stale[hidden]"); err != nil || n != 1 {
		t.Errorf("JS off: stale banner not hidden (%d, %v)", n, err)
	}
	screenshot(t, tab, "index-nojs.png")
	noJS.check(t, "JS off")
}

// TestBrowserCrowdSurge: the page marks a service whose crowd count is a
// surge, as the thin server's /api/v1/situation says it, in /check's
// words, and no other; the built situation.json, which a static host
// serves, carries no count and marks none.
func TestBrowserCrowdSurge(t *testing.T) {
	t.Parallel()
	chrome := findChromium()
	if chrome == "" {
		t.Skip("no Chromium: install Debian's chromium package (.ci/run does), or set AISTATUS_CHROME")
	}
	dir, _ := publishStatuses(t, time.Now(), nil)
	built, err := os.ReadFile(filepath.Join(dir, snapshot.FileSituation))
	if err != nil {
		t.Fatal(err)
	}
	var situation api.Situation
	if err := json.Unmarshal(built, &situation); err != nil {
		t.Fatal(err)
	}
	for i, sub := range situation.Subjects {
		if sub.ID == "groq" {
			situation.Subjects[i].Reports = &api.Reports{Count: 12, State: check.ReportsSurge}
		}
	}
	surge, err := json.Marshal(situation)
	if err != nil {
		t.Fatal(err)
	}
	var live atomic.Bool
	var asked atomic.Int64 // the situation's requests: the script did run
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == snapshot.PathSituation {
			asked.Add(1)
			w.Header().Set("Content-Type", "application/json")
			if live.Load() {
				w.Write(surge)
			} else {
				w.Write(built)
			}
			return
		}
		http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	browser := startBrowser(t, ctx, chrome)
	var problems consoleProblems
	problems.listen(t, browser)
	marked := func() []string {
		t.Helper()
		got, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("li.svc p.crowd"), p => p.closest("li.svc").dataset.slug + ": " + p.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// The built situation: the page's script reads it and marks nothing.
	if err := chromedp.Do(browser, chromedp.Navigate(srv.URL+"/"), chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatalf("loading /: %v", err)
	}
	if got := marked(); len(got) != 0 || asked.Load() != 1 {
		t.Errorf("the built situation, asked for %d times, marked %q: want it read once, marking nothing", asked.Load(), got)
	}
	live.Store(true)
	if err := chromedp.Do(browser, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`li.svc[data-slug="groq"] p.crowd`)); err != nil {
		t.Fatalf("no crowd mark on Groq's card: %v", err)
	}
	want := "groq: 👥 errors reported through /check from 12 networks right now: a surge of reports, not a status"
	if got := marked(); len(got) != 1 || got[0] != want {
		t.Errorf("marked %q, want only %q", got, want)
	}
	// Groq's own page says it under its status; OpenAI's says nothing.
	for _, tc := range []struct {
		slug string
		want []string
	}{{"groq", []string{want[len("groq: "):]}}, {"openai", nil}} {
		wait := chromedp.Sleep(500 * time.Millisecond)
		if tc.want != nil {
			wait = chromedp.WaitVisible(`p.svc-now + p.crowd`)
		}
		if err := chromedp.Do(browser, chromedp.Navigate(srv.URL+"/"+site.ServicePage(tc.slug)), wait); err != nil {
			t.Fatalf("%s's page: %v", tc.slug, err)
		}
		got, err := chromedp.Run(browser, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("p.crowd"), p => p.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s's page marked %q, want %q", tc.slug, got, tc.want)
		}
	}
	problems.check(t, "the crowd's mark")
}
