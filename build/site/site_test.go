package site

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"golang.org/x/net/html"
)

func render(t *testing.T) (snapshot.Documents, map[string][]byte) {
	t.Helper()
	docs, h := fixture(t)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	return docs, files
}

// goldenFiles are the rendered files kept in testdata/golden: one of each
// kind, for services in several states. The other services' files come from
// the same templates.
var goldenFiles = []string{
	"index.html", "services/anthropic.html", "services/azure-openai.html",
	"incidents.atom", "services/anthropic.atom", "services/openai.atom",
	"badges/openai.svg", "badges/openai-uptime.svg", "badges/openai.json", "badges/openai-uptime.json",
	"badges/azure-openai-uptime.svg", "llms.txt", ".well-known/api-catalog",
	"incidents.feed.json", "services/anthropic.feed.json", "maintenance.ics", "services/mistral.ics", "models/retirements.ics", "metrics.txt",
	"p/anthropic/api/v2/summary.json", "p/anthropic/api/v2/incidents.json", "p/azure-openai/api/v2/summary.json",
	"p/mistral/api/v2/summary.json", "p/groq/api/v2/scheduled-maintenances.json",
}

// TestGolden compares rendered files with the reviewed ones; after an
// intended change, run `go test ./build/site -update` and review the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	for _, name := range goldenFiles {
		got, ok := files[name]
		if !ok {
			t.Errorf("%s was not rendered", name)
			continue
		}
		buildtest.Golden(t, name, got)
	}
}

func TestRenderWritesEveryFile(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	want := []string{FileIndex, FileModelsPage, FileLLMs, FileFeed, FileAPICatalog, FileJSONFeed, FileCalendar, FileRetirementsCalendar, FileMetrics}
	for _, svc := range docs.Services {
		want = append(want, ServicePage(svc.Slug), ServiceFeed(svc.Slug),
			BadgeFile(svc.Slug, "", "svg"), BadgeFile(svc.Slug, "", "json"),
			BadgeFile(svc.Slug, "-uptime", "svg"), BadgeFile(svc.Slug, "-uptime", "json"),
			ServiceJSONFeed(svc.Slug), ServiceCalendar(svc.Slug))
		for _, sf := range svc.Surfaces {
			if sf.ID != catalog.SurfaceAPI { // the API's badge is the service's
				want = append(want, BadgeFile(svc.Slug, "-"+string(sf.ID), "svg"), BadgeFile(svc.Slug, "-"+string(sf.ID), "json"))
			}
		}
		for _, name := range StatuspageFiles {
			want = append(want, StatuspageDir(svc.Slug)+"/"+name)
		}
	}
	var got []string
	for name, data := range files {
		got = append(got, name)
		if len(data) == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("files:\n%v\nwant:\n%v", got, want)
	}
}

// TestRenderWithoutHistory: a first build has no history; every day is
// drawn as "no data" and nothing fails.
func TestRenderWithoutHistory(t *testing.T) {
	t.Parallel()
	docs, _ := fixture(t)
	files, err := Render(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseHTML(t, files[FileIndex])
	for _, rect := range findAll(doc, func(n *html.Node) bool {
		return n.Data == "rect" && hasClass(n, "bar") && !hasAncestorClass(n, "legend")
	}) {
		if !hasClass(rect, "nodata") || !strings.HasSuffix(text(rect), ": no data") {
			t.Fatalf("bar without history: class %q, title %q", attr(rect, "class"), text(rect))
		}
	}
}

// --- HTML pages ---

func parseHTML(t *testing.T, data []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			out = append(out, d)
		}
	}
	return out
}

func byTag(n *html.Node, tag string) []*html.Node {
	return findAll(n, func(d *html.Node) bool { return d.Data == tag })
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key })
}

func hasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(attr(n, "class")), class)
}

func hasAncestorClass(n *html.Node, class string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if hasClass(p, class) {
			return true
		}
	}
	return false
}

// text is the text content of n, with white space collapsed.
func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func htmlPages(files map[string][]byte) []string {
	var pages []string
	for name := range files {
		if strings.HasSuffix(name, ".html") {
			pages = append(pages, name)
		}
	}
	slices.Sort(pages)
	return pages
}

// TestPagesAreAccessible checks the structure every page must have: a
// language, landmarks, one h1 and headings in order, text for every
// graphic, a viewport, the feed link, and nothing fetched from elsewhere.
func TestPagesAreAccessible(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	for _, name := range htmlPages(files) {
		t.Run(name, func(t *testing.T) {
			doc := parseHTML(t, files[name])
			root := byTag(doc, "html")[0]
			if attr(root, "lang") != "en" {
				t.Errorf("html lang = %q", attr(root, "lang"))
			}
			for _, landmark := range []string{"header", "main", "footer"} {
				if n := len(byTag(doc, landmark)); n != 1 {
					t.Errorf("%d <%s> elements, want 1", n, landmark)
				}
			}
			if titles := byTag(byTag(doc, "head")[0], "title"); len(titles) != 1 || text(titles[0]) == "" {
				t.Error("no title")
			}
			metas := map[string]string{}
			for _, m := range byTag(doc, "meta") {
				metas[attr(m, "name")] = attr(m, "content")
			}
			if !strings.Contains(metas["viewport"], "width=device-width") || metas["description"] == "" {
				t.Errorf("meta: %v", metas)
			}
			feeds := findAll(doc, func(n *html.Node) bool {
				return n.Data == "link" && attr(n, "rel") == "alternate" && attr(n, "type") == "application/atom+xml"
			})
			if len(feeds) == 0 {
				t.Error("no Atom feed link in head")
			}

			// One h1, then no level skipped on the way down.
			headings := findAll(doc, func(n *html.Node) bool { return regexp.MustCompile(`^h[1-6]$`).MatchString(n.Data) })
			level := 0
			h1 := 0
			for _, h := range headings {
				l := int(h.Data[1] - '0')
				if l == 1 {
					h1++
				}
				if l > level+1 {
					t.Errorf("<%s>%s</%s> follows an h%d", h.Data, text(h), h.Data, level)
				}
				if text(h) == "" {
					t.Errorf("empty <%s>", h.Data)
				}
				level = l
			}
			if h1 != 1 || headings[0].Data != "h1" {
				t.Errorf("%d h1, first heading %s; want exactly one h1, first", h1, headings[0].Data)
			}

			// Every graphic has a text alternative or is decorative beside text.
			for _, img := range byTag(doc, "img") {
				if strings.TrimSpace(attr(img, "alt")) == "" {
					t.Errorf("img %s has no alt", attr(img, "src"))
				}
			}
			for _, svg := range byTag(doc, "svg") {
				switch {
				case attr(svg, "aria-hidden") == "true":
				case attr(svg, "role") == "img" && attr(svg, "aria-label") != "":
				default:
					t.Errorf("svg %q is neither aria-hidden nor a labelled img", attr(svg, "class"))
				}
			}
			for _, chart := range findAll(doc, func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "chart") }) {
				bars := byTag(chart, "rect")
				if len(bars) != ChartDays {
					t.Errorf("chart with %d bars", len(bars))
				}
				for _, b := range bars {
					if titles := byTag(b, "title"); len(titles) != 1 || text(titles[0]) == "" {
						t.Errorf("bar without a title in %q", attr(chart, "aria-label"))
					}
				}
			}

			// Self-contained: no script, style sheet or image from elsewhere.
			for _, s := range byTag(doc, "script") {
				if hasAttr(s, "src") {
					t.Errorf("external script %s", attr(s, "src"))
				}
			}
			for _, l := range byTag(doc, "link") {
				if rel := attr(l, "rel"); rel == "stylesheet" || rel == "preload" || rel == "preconnect" {
					t.Errorf("link rel=%s %s", rel, attr(l, "href"))
				}
			}
			for _, img := range byTag(doc, "img") {
				if u, _ := url.Parse(attr(img, "src")); u == nil || u.IsAbs() {
					t.Errorf("img src %q is not inside the site", attr(img, "src"))
				}
			}
			for _, st := range byTag(doc, "style") {
				if css := text(st); strings.Contains(css, "url(") || strings.Contains(css, "@import") {
					t.Error("style sheet loads something")
				}
			}

			// Ids are unique; times are machine-readable.
			ids := map[string]bool{}
			for _, n := range findAll(doc, func(n *html.Node) bool { return hasAttr(n, "id") }) {
				if ids[attr(n, "id")] {
					t.Errorf("duplicate id %q", attr(n, "id"))
				}
				ids[attr(n, "id")] = true
			}
			for _, tm := range byTag(doc, "time") {
				dt := attr(tm, "datetime")
				if _, err := time.Parse(time.RFC3339, dt); err != nil {
					if _, err := time.Parse(time.DateOnly, dt); err != nil {
						t.Errorf("time datetime=%q", dt)
					}
				}
			}

			// The stale banner is hidden until the script shows it, and the
			// noscript note stands in for it without JavaScript.
			stale := findAll(doc, func(n *html.Node) bool { return attr(n, "id") == "stale" })
			if len(stale) != 1 || !hasAttr(stale[0], "hidden") || attr(stale[0], "data-generated") != "2026-11-01T12:00:00Z" ||
				attr(stale[0], "data-stale-after") != "900" {
				t.Errorf("stale banner: %v", stale)
			}
			if !bytes.Contains(files[name], []byte("<noscript><p class=\"note\">This page was generated at <time datetime=\"2026-11-01T12:00:00Z\">")) ||
				!bytes.Contains(files[name], []byte("may be stale after 15 minutes")) {
				t.Error("no noscript note on staleness")
			}
		})
	}
}

// TestIndexShowsEveryService checks the status page against the documents.
func TestIndexShowsEveryService(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	doc := parseHTML(t, files[FileIndex])
	entries := findAll(doc, func(n *html.Node) bool { return n.Data == "li" && hasClass(n, "svc") })
	if len(entries) != len(docs.Services) {
		t.Fatalf("%d service entries, want %d", len(entries), len(docs.Services))
	}
	want := map[string]api.ServiceDoc{}
	for _, s := range docs.Services {
		want[s.Slug] = s
	}
	for _, e := range entries {
		svc := want[attr(e, "data-slug")]
		texts := findAll(e, func(n *html.Node) bool { return hasClass(n, "status-text") })
		if len(texts) != 1 || text(texts[0]) != svc.Status.Label() || attr(e, "data-status") != string(svc.Status) {
			t.Errorf("%s: shown %q (%s), want %q", svc.Slug, text(texts[0]), attr(e, "data-status"), svc.Status.Label())
		}
		if !strings.Contains(text(e), "30 d"+monthText(svc)) {
			t.Errorf("%s: no 30-day uptime in %q", svc.Slug, text(e))
		}
		// Uptime computed from too little of its window is not shown.
		if svc.Slug == "langsmith" && !strings.Contains(text(e), "24 h100%7 dnot enough data30 dnot enough data") {
			t.Errorf("langsmith (two days of data): %q", text(e))
		}
	}

	// Categories come in the catalog's order, each with its human title.
	var got []string
	for _, h2 := range byTag(doc, "h2") {
		got = append(got, text(h2))
	}
	wantH2 := []string{"What is wrong now", "LLM APIs", "Cloud AI platforms", "Inference platforms", "Image and video",
		"Audio and speech", "Vector databases", "LLMOps", "Coding assistants", "Models", "Status pages not being read", "Recent incidents"}
	if !slices.Equal(got, wantH2) {
		t.Errorf("h2: %q", got)
	}

	banner := text(findAll(doc, func(n *html.Node) bool { return hasClass(n, "overall") })[0])
	// The fixture's claude.ai is in a partial outage beside the four APIs.
	if !strings.HasPrefix(banner, "4 services and 1 surface with issues") {
		t.Errorf("overall banner %q", banner)
	}

	// The pages not being read: one failing for hours, one never read, and
	// the services without a readable page.
	var unread []string
	for _, li := range byTag(findAll(doc, func(n *html.Node) bool { return hasClass(n, "unread") })[0], "li") {
		unread = append(unread, text(li))
	}
	for _, want := range []string{
		"Azure OpenAI: Its status page could not be read.",
		"Mistral AI: No page a program can read",
		"Pinecone: Its status page could not be read (schema) for 3 h 10 min.",
	} {
		if !slices.ContainsFunc(unread, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("no unread source %q in %q", want, unread)
		}
	}

	// What is wrong now leads the page: the services with issues or under
	// maintenance, worst first, and the ongoing incidents, before a card per service.
	now := findAll(doc, func(n *html.Node) bool { return hasClass(n, "now") })
	if len(now) != 1 {
		t.Fatal("no \"What is wrong now\" section")
	}
	var affected []string
	for _, li := range byTag(findAll(now[0], func(n *html.Node) bool { return hasClass(n, "affected") })[0], "li") {
		affected = append(affected, attr(li, "data-slug"))
	}
	// Mistral, under maintenance, is there too, after the outages: not an
	// outage, but not fully usable.
	if want := []string{"anthropic", "perplexity", "deepgram", "openai", "mistral"}; !slices.Equal(affected, want) {
		t.Errorf("affected %q, want %q (worst first)", affected, want)
	}
	if !strings.Contains(text(now[0]), "Mistral AI Under maintenance") {
		t.Errorf("the maintenance is not in %q", text(now[0]))
	}
	if !strings.Contains(text(now[0]), "Perplexity Major outage (our probes; its status page says “Operational”)") {
		t.Errorf("the disagreement is not in %q", text(now[0]))
	}
	var ongoing []string
	for _, li := range byTag(findAll(now[0], func(n *html.Node) bool { return hasClass(n, "ongoing") })[0], "li") {
		ongoing = append(ongoing, text(li))
	}
	if len(ongoing) != 2 || !strings.HasPrefix(ongoing[0], "Anthropic: Elevated errors") || !strings.HasPrefix(ongoing[1], "Cohere: Increased latency") {
		t.Errorf("ongoing incidents %q", ongoing)
	}

	// Recent incidents: the last 14 days plus ongoing ones, newest first.
	var ids []string
	incidentLists := findAll(doc, func(n *html.Node) bool { return hasClass(n, "incidents") })
	for _, li := range byTag(incidentLists[len(incidentLists)-1], "li") {
		ids = append(ids, text(li))
	}
	if len(ids) != 4 || !strings.HasPrefix(ids[0], "Anthropic: Elevated errors") || !strings.HasPrefix(ids[3], "Cohere: Increased latency") {
		t.Errorf("recent incidents: %q", ids)
	}
	if strings.Contains(strings.Join(ids, "\n"), "Groq") {
		t.Error("an incident older than 14 days is listed")
	}
}

func TestServicePage(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	doc := parseHTML(t, files[ServicePage("anthropic")])
	if h1 := text(byTag(doc, "h1")[0]); h1 != "Anthropic status" {
		t.Errorf("h1 %q", h1)
	}
	page := text(doc)
	for _, want := range []string{
		"Major outage", "24 h97.916%", "Elevated errors on Claude API", "ongoing", "API host not answering",
		"detected by aistatus's probe", "lasted 1 h 20 min", "Atlassian Statuspage feed was read",
		"HTTP 401", "https://aistatus.example/api/v1/services/anthropic",
		"[![Anthropic status](https://aistatus.example/badges/anthropic.svg)](https://aistatus.example/services/anthropic)",
		"https://img.shields.io/endpoint?url=https://aistatus.example/badges/anthropic-uptime.json",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("anthropic page lacks %q", want)
		}
	}
	// The components of the page, each marked in or out of the scope.
	rows := byTag(findAll(doc, func(n *html.Node) bool { return hasClass(n, "components") })[0], "tr")
	var got []string
	for _, tr := range rows[1:] {
		got = append(got, text(tr))
	}
	if want := []string{"claude.aiPartial outagenot the API", "Claude API (api.anthropic.com)Major outagein scope",
		"Claude Code (Apps)Operationalnot the API"}; !slices.Equal(got, want) {
		t.Errorf("components %q, want %q", got, want)
	}
	// Our probes overruling a calm page say so, up front.
	perplexity := parseHTML(t, files[ServicePage("perplexity")])
	notes := findAll(perplexity, func(n *html.Node) bool { return hasClass(n, "disagree") })
	if len(notes) != 1 || !strings.Contains(text(notes[0]), "Our probes disagree with the official status page, which says “Operational”") {
		t.Errorf("perplexity: disagreement note %v", notes)
	}
	if mistral := text(parseHTML(t, files[ServicePage("mistral")])); !strings.Contains(mistral, "Rootly") {
		t.Error("mistral page does not say why it has no feed")
	}
	azure := text(parseHTML(t, files[ServicePage("azure-openai")]))
	for _, want := range []string{"Unknown", "no data", "could not be read", "no generic API host", "No incidents in the last 90 days."} {
		if !strings.Contains(azure, want) {
			t.Errorf("azure-openai page lacks %q", want)
		}
	}
}

// urlRoute matches the API routes a page may link to.
var apiRoute = regexp.MustCompile(`^/api/v1/(status|services/[a-z0-9-]+|models|models/retirements|models/[a-z0-9._-]+/[a-z0-9._-]+|incidents|check|openapi\.json|export)$`)

// TestInternalLinksResolve follows every link, image and feed reference of
// every page that stays inside the site: each must be a rendered file, a
// page served under its pretty URL, an API route, or an id on the page.
func TestInternalLinksResolve(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	base, _ := url.Parse(fixtureBase + "/")
	// Files of the snapshot that build.Render writes beside these.
	files["openapi.json"] = nil
	for _, name := range htmlPages(files) {
		pageURL := "/" + strings.TrimSuffix(name, ".html")
		if name == FileIndex {
			pageURL = "/"
		}
		self := base.ResolveReference(&url.URL{Path: strings.TrimPrefix(pageURL, "/")})
		doc := parseHTML(t, files[name])
		ids := map[string]bool{}
		for _, n := range findAll(doc, func(n *html.Node) bool { return hasAttr(n, "id") }) {
			ids[attr(n, "id")] = true
		}
		checked := 0
		for _, n := range findAll(doc, func(n *html.Node) bool { return hasAttr(n, "href") || hasAttr(n, "src") }) {
			ref := attr(n, "href") + attr(n, "src")
			if strings.HasPrefix(ref, "data:") {
				continue
			}
			u, err := self.Parse(ref)
			if err != nil {
				t.Errorf("%s: bad link %q", name, ref)
				continue
			}
			if u.Host != base.Host {
				if u.Scheme != "https" {
					t.Errorf("%s: external link %q is not https", name, ref)
				}
				continue
			}
			checked++
			if strings.HasPrefix(ref, "#") {
				if !ids[ref[1:]] {
					t.Errorf("%s: no id for %q", name, ref)
				}
				continue
			}
			p := u.Path
			switch {
			case apiRoute.MatchString(p):
			case p == "/":
			// The API description and the dataset's index are rendered by build, not here.
			case files[strings.TrimPrefix(p, "/")] != nil || p == "/openapi.json" || p == "/"+snapshot.FileDatasets:
			case path.Ext(p) == "" && files[strings.TrimPrefix(p, "/")+".html"] != nil:
			default:
				t.Errorf("%s: link %q (%s) resolves to nothing", name, ref, p)
			}
		}
		if checked < 5 {
			t.Errorf("%s: only %d internal links checked", name, checked)
		}
	}
}

// --- Atom ---

type testFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Rights  string   `xml:"rights"`
	Author  struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Links []struct {
		Rel  string `xml:"rel,attr"`
		Href string `xml:"href,attr"`
	} `xml:"link"`
	Entries []struct {
		ID        string `xml:"id"`
		Title     string `xml:"title"`
		Updated   string `xml:"updated"`
		Published string `xml:"published"`
		Summary   string `xml:"summary"`
		Links     []struct {
			Rel  string `xml:"rel,attr"`
			Href string `xml:"href,attr"`
		} `xml:"link"`
	} `xml:"entry"`
}

// TestAtomFeeds checks every feed against the elements Atom 1.0 requires.
func TestAtomFeeds(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	rfc3339 := func(what, v string) {
		if _, err := time.Parse(time.RFC3339, v); err != nil {
			t.Errorf("%s: %q is not RFC 3339", what, v)
		}
	}
	feeds := 0
	for name, data := range files {
		if !strings.HasSuffix(name, ".atom") {
			continue
		}
		feeds++
		if !bytes.HasPrefix(data, []byte(xml.Header)) {
			t.Errorf("%s: no XML declaration", name)
		}
		var f testFeed
		if err := xml.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.ID == "" || f.Title == "" || f.Author.Name != "aistatus" || f.Rights != api.License {
			t.Errorf("%s: feed id %q title %q author %q rights %q", name, f.ID, f.Title, f.Author.Name, f.Rights)
		}
		rfc3339(name+" updated", f.Updated)
		self := false
		for _, l := range f.Links {
			self = self || (l.Rel == "self" && l.Href == fixtureBase+"/"+name)
		}
		if !self {
			t.Errorf("%s: no rel=self link to itself: %+v", name, f.Links)
		}
		// A feed's id is its own address: unique to this instance.
		if f.ID != fixtureBase+"/"+name {
			t.Errorf("%s: feed id %q, want its address", name, f.ID)
		}
		for _, e := range f.Entries {
			if !strings.HasPrefix(e.ID, fixtureBase+"/services/") || !strings.Contains(e.ID, "#incident-") || !strings.HasPrefix(e.Title, "[") || e.Summary == "" {
				t.Errorf("%s: entry %+v", name, e)
			}
			rfc3339(name+" entry updated", e.Updated)
			rfc3339(name+" entry published", e.Published)
			if len(e.Links) == 0 || e.Links[0].Rel != "alternate" || !strings.HasPrefix(e.Links[0].Href, "https://") {
				t.Errorf("%s: entry links %+v", name, e.Links)
			}
		}
	}
	if want := len(docs.Services) + 1; feeds != want { // one a service, and incidents.atom
		t.Errorf("%d feeds, want %d", feeds, want)
	}

	var all testFeed
	xml.Unmarshal(files[FileFeed], &all)
	// The five incidents of the history, and claude.ai's (newest), which is
	// a surface's, not the API's.
	if len(all.Entries) != 6 || all.Entries[0].ID != fixtureBase+"/services/anthropic#incident-anthropic-01JAPP" ||
		all.Entries[1].ID != fixtureBase+"/services/anthropic#incident-anthropic-01JANTH" {
		t.Fatalf("incidents.atom: %d entries, first %+v", len(all.Entries), all.Entries[0])
	}
	// Another instance, another base URL: the same incident has another id.
	other := docs
	other.Manifest.BaseURL = "https://status.other.example/"
	otherFiles, err := Render(other, nil)
	if err != nil {
		t.Fatal(err)
	}
	var elsewhere testFeed
	xml.Unmarshal(otherFiles[FileFeed], &elsewhere)
	if len(elsewhere.Entries) < 2 || elsewhere.Entries[1].ID != "https://status.other.example/services/anthropic#incident-anthropic-01JANTH" ||
		elsewhere.ID != "https://status.other.example/"+FileFeed {
		t.Errorf("another instance's ids: feed %q, first entry %+v", elsewhere.ID, elsewhere.Entries)
	}
	var openai testFeed
	xml.Unmarshal(files[ServiceFeed("openai")], &openai)
	if len(openai.Entries) != 1 || openai.Entries[0].Title != `[OpenAI] Errors on <Responses> & "Chat"` ||
		openai.Entries[0].Links[0].Href != "https://status.openai.com/incidents/01JOAI" ||
		!strings.Contains(openai.Entries[0].Summary, "Severity: major") {
		t.Errorf("openai.atom: %+v", openai.Entries)
	}
}

// --- badges ---

type testSVG struct {
	XMLName   xml.Name `xml:"http://www.w3.org/2000/svg svg"`
	Width     int      `xml:"width,attr"`
	Height    int      `xml:"height,attr"`
	Role      string   `xml:"role,attr"`
	AriaLabel string   `xml:"aria-label,attr"`
	Title     string   `xml:"title"`
	Texts     []string `xml:"g>text"`
}

func TestBadges(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	for _, svc := range docs.Services {
		for _, b := range []struct {
			kind, label, message string
		}{
			{"", svc.Name, svc.Status.Word()},
			{"-uptime", svc.Name + " 30d uptime", monthText(svc)},
		} {
			name := BadgeFile(svc.Slug, b.kind, "svg")
			var s testSVG
			dec := xml.NewDecoder(bytes.NewReader(files[name]))
			if err := dec.Decode(&s); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if cd, ok := tok.(xml.CharData); err != nil || !ok || len(bytes.TrimSpace(cd)) > 0 {
					t.Errorf("%s: content after the svg element: %v %v", name, tok, err)
					break
				}
			}
			want := b.label + ": " + b.message
			if s.Role != "img" || s.AriaLabel != want || s.Title != want || s.Height != 20 || len(s.Texts) != 4 || s.Texts[3] != b.message {
				t.Errorf("%s: %+v, want label %q", name, s, want)
			}
			if min := textWidth(b.label) + textWidth(b.message) + 20; float64(s.Width) < min || float64(s.Width) > min+2 {
				t.Errorf("%s: width %d for %q", name, s.Width, want)
			}

			var ep struct {
				SchemaVersion         int
				Label, Message, Color string
				CacheSeconds          int
			}
			if err := json.Unmarshal(files[BadgeFile(svc.Slug, b.kind, "json")], &ep); err != nil {
				t.Fatal(err)
			}
			if ep.SchemaVersion != 1 || ep.Label != b.label || ep.Message != b.message || ep.Color == "" || ep.CacheSeconds != 60 {
				t.Errorf("%s endpoint: %+v", svc.Slug+b.kind, ep)
			}
		}
	}
}

func TestTextWidth(t *testing.T) {
	t.Parallel()
	if w := textWidth("OpenAI"); math.Abs(w-41.3) > 0.01 { // 8.7+6.9+6.6+7+7.5+4.6
		t.Errorf("textWidth(OpenAI) = %v", w)
	}
	if textWidth("iii") >= textWidth("WWW") {
		t.Error("narrow letters measured as wide ones")
	}
	if textWidth("é") != wideWidth {
		t.Error("a character outside the table is not given the wide width")
	}
}

// --- discovery files ---

func TestAPICatalog(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	var doc struct {
		Linkset []map[string]json.RawMessage `json:"linkset"`
	}
	if err := json.Unmarshal(files[FileAPICatalog], &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Linkset) != 2 {
		t.Fatalf("%d linkset entries", len(doc.Linkset))
	}
	type target struct{ Href, Type string }
	get := func(entry map[string]json.RawMessage, rel string) []target {
		var out []target
		if err := json.Unmarshal(entry[rel], &out); err != nil || len(out) == 0 {
			t.Errorf("%s: %v %s", rel, err, entry[rel])
		}
		return out
	}
	apiLinks := doc.Linkset[0]
	if string(apiLinks["anchor"]) != `"`+fixtureBase+`/api/v1"` {
		t.Errorf("anchor %s", apiLinks["anchor"])
	}
	if d := get(apiLinks, "service-desc"); d[0].Href != fixtureBase+"/api/v1/openapi.json" || d[0].Type != "application/vnd.oai.openapi+json;version=3.0" {
		t.Errorf("service-desc %+v", d)
	}
	if d := get(apiLinks, "service-doc"); d[0].Href != fixtureBase+"/" || d[0].Type != "text/html" {
		t.Errorf("service-doc %+v", d)
	}
	if d := get(apiLinks, "service-meta"); d[0].Href != fixtureBase+"/llms.txt" {
		t.Errorf("service-meta %+v", d)
	}
	if d := get(apiLinks, "license"); d[0].Href != api.LicenseURL {
		t.Errorf("license %+v", d)
	}
	mcp := doc.Linkset[1]
	if string(mcp["anchor"]) != `"`+fixtureBase+`/mcp"` {
		t.Errorf("MCP anchor %s", mcp["anchor"])
	}
	get(mcp, "license")
}

func TestLLMSTxt(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	txt := string(files[FileLLMs])
	if !strings.HasPrefix(txt, "# aistatus\n\n> ") {
		t.Errorf("llms.txt does not start with the title and summary:\n%.100s", txt)
	}
	sections := regexp.MustCompile(`(?m)^## (.+)$`).FindAllStringSubmatch(txt, -1)
	var names []string
	for _, s := range sections {
		names = append(names, s[1])
	}
	if !slices.Equal(names, []string{"API", "Licence", "Current status", "Optional"}) {
		t.Errorf("sections %q", names)
	}
	section := func(name string) string {
		_, rest, _ := strings.Cut(txt, "## "+name+"\n")
		body, _, _ := strings.Cut(rest, "\n## ")
		return body
	}
	for _, endpoint := range []string{"", "status", "services/openai", "services/openai/at/", "incidents?", "check?q=api", "check?q=openai&error=529",
		"openapi.json", "export?format=csv", "sources", "changes?since=", "services/anthropic/history?from=",
		"statusline?q=", "check?q=openai,pinecone"} {
		link := "(" + fixtureBase + "/api/v1/" + endpoint
		if !strings.HasSuffix(endpoint, "?") && !strings.HasSuffix(endpoint, "/") && !strings.Contains(endpoint, "?") {
			link += ")" // the whole address, not the start of a longer one
		}
		if n := strings.Count(section("API"), link); n != 1 {
			t.Errorf("API section has %d example links %s…", n, link)
		}
	}
	if !strings.Contains(section("Licence"), `"aistatus, CC-BY-4.0, https://aistatus.example"`) {
		t.Error("no credit line")
	}
	current := section("Current status")
	if !strings.Contains(current, "Generated at 2026-11-01T12:00:00Z.") {
		t.Error("no generation time")
	}
	for _, svc := range docs.Services {
		disagree := ""
		if svc.Sources.Disagreement != nil {
			disagree = " — our probes disagree with its status page (operational)"
		}
		// Then each surface other than the API, with its own status.
		for _, sf := range svc.Surfaces {
			if sf.ID != catalog.SurfaceAPI {
				disagree += fmt.Sprintf("; %s (%s): %s", sf.Name, sf.ID, sf.Status)
			}
		}
		line := fmt.Sprintf("- %s (%s): %s — 30d uptime %s%s\n", svc.Name, svc.Slug, svc.Status, monthText(svc), disagree)
		if !strings.Contains(current, line) {
			t.Errorf("no line %q", line)
		}
	}
	if !strings.Contains(section("Optional"), "("+fixtureBase+"/mcp)") || !strings.Contains(section("Optional"), "/.well-known/api-catalog)") {
		t.Error("Optional lacks the MCP endpoint or the API catalog")
	}
}

// --- presentation ---

// TestContrast computes the WCAG 2 contrast ratio of every text colour on
// every background it is drawn on, in both themes (AA: 4.5:1), and of the
// chart colours against the cards (non-text, 3:1).
func TestContrast(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]palette{"light": lightTheme, "dark": darkTheme} {
		for _, bg := range []string{p.Bg, p.Surface} {
			for fgName, fg := range p.texts() {
				if r := contrast(fg, bg); r < 4.5 {
					t.Errorf("%s: %s %s on %s: %.2f:1, want at least 4.5:1", name, fgName, fg, bg, r)
				}
			}
		}
		for _, bar := range []string{p.Operational, p.Degraded, p.Partial, p.Major, p.NoData} {
			if r := contrast(bar, p.Surface); r < 3 {
				t.Errorf("%s: bar %s on %s: %.2f:1, want at least 3:1", name, bar, p.Surface, r)
			}
			if r := contrast(bar, p.Bg); r < 3 {
				t.Errorf("%s: icon glyph %s on %s: %.2f:1, want at least 3:1", name, p.Bg, bar, r)
			}
		}
	}
	// The formula itself, against known values.
	if r := contrast("#000000", "#ffffff"); math.Abs(r-21) > 0.01 {
		t.Errorf("black on white: %.2f", r)
	}
	if r := contrast("#777777", "#ffffff"); math.Abs(r-4.48) > 0.01 {
		t.Errorf("#777 on white: %.2f", r)
	}
}

// The colours of the chart legend must be told apart, not only read: every
// two of them at least 30 apart in CIELAB (ΔE*76; 2.3 is a just noticeable
// difference). The first palette had degraded and partial 25 apart.
func TestLegendColoursDistinct(t *testing.T) {
	t.Parallel()
	for name, p := range map[string]palette{"light": lightTheme, "dark": darkTheme} {
		legend := map[string]string{"operational": p.Operational, "degraded": p.Degraded, "partial": p.Partial, "major": p.Major, "no data": p.NoData}
		for a, ca := range legend {
			for b, cb := range legend {
				if a < b && deltaE(ca, cb) < 30 {
					t.Errorf("%s: %s %s and %s %s are %.1f apart, want at least 30", name, a, ca, b, cb, deltaE(ca, cb))
				}
			}
		}
	}
	if d := deltaE("#000000", "#ffffff"); math.Abs(d-100) > 0.1 {
		t.Errorf("black to white: %.2f, want 100", d)
	}
}

// deltaE is the CIE76 colour difference of two #rrggbb colours (sRGB, D65).
func deltaE(a, b string) float64 {
	la, aa, ba := cielab(a)
	lb, ab, bb := cielab(b)
	return math.Sqrt((la-lb)*(la-lb) + (aa-ab)*(aa-ab) + (ba-bb)*(ba-bb))
}

func cielab(hex string) (l, a, b float64) {
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		panic("bad colour " + hex)
	}
	var rgb [3]float64
	for i := range rgb {
		c := float64(v>>(16-8*i)&0xff) / 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		rgb[i] = c
	}
	x := (0.4124*rgb[0] + 0.3576*rgb[1] + 0.1805*rgb[2]) / 0.95047
	y := 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
	z := (0.0193*rgb[0] + 0.1192*rgb[1] + 0.9505*rgb[2]) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return 116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
}

func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is the WCAG relative luminance of a #rrggbb colour.
func luminance(hex string) float64 {
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		panic("bad colour " + hex)
	}
	var l float64
	for i, weight := range []float64{0.2126, 0.7152, 0.0722} {
		c := float64(v>>(16-8*i)&0xff) / 255
		if c <= 0.04045 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += weight * c
	}
	return l
}

func TestStatusPresentation(t *testing.T) {
	t.Parallel()
	labels := map[string]bool{}
	for _, s := range api.Statuses {
		info := Status(s)
		if info.Key != s || info.Label == "" || info.Word == "" || labels[info.Label] {
			t.Errorf("%s: %+v", s, info)
		}
		// The words are api's, one per status in every output.
		if info.Label != s.Label() || info.Word != s.Word() || info.Issue != s.AtLeast(api.Degraded) {
			t.Errorf("%s: %+v, not api's label %q and word %q", s, info, s.Label(), s.Word())
		}
		if b := statusBadge(&service{ServiceDoc: api.ServiceDoc{Name: "X"}, State: info}); b.Message != s.Word() {
			t.Errorf("%s: the badge says %q, want api's word %q", s, b.Message, s.Word())
		}
		labels[info.Label] = true
		var icon bytes.Buffer
		if err := pageTemplates.ExecuteTemplate(&icon, "icon", string(s)); err != nil || !strings.Contains(icon.String(), "<path") {
			t.Errorf("%s: icon %q %v", s, icon.String(), err)
		}
	}
	if Status("bogus").Key != api.Unknown {
		t.Error("an unknown status is not presented as unknown")
	}
}

// TestOverallHeadline: the banner counts the subjects in trouble, APIs and
// other surfaces, and takes the worst of them: claude.ai down with every
// API up is no "All systems operational".
func TestOverallHeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		statuses []api.Status
		// surfaces are the first service's surfaces other than its API.
		surfaces  []api.Status
		want      string
		wantState api.Status
	}{
		{[]api.Status{"operational", "operational"}, nil, "All systems operational", api.Operational},
		{[]api.Status{"operational", "unknown"}, nil, "All checked systems operational", api.Operational},
		{[]api.Status{"unknown", "unknown"}, nil, "Status unknown: no service could be checked", api.Unknown},
		{[]api.Status{"operational", "maintenance"}, nil, "No outages; 1 service under maintenance", api.Maintenance},
		{[]api.Status{"degraded", "operational"}, nil, "1 service with issues", api.Degraded},
		{[]api.Status{"degraded", "major_outage", "maintenance"}, nil, "2 services with issues", api.MajorOutage},
		{[]api.Status{"operational", "operational"}, []api.Status{"major_outage", "major_outage", "operational"},
			"2 surfaces with issues", api.MajorOutage},
		{[]api.Status{"operational", "degraded"}, []api.Status{"partial_outage"}, "1 service and 1 surface with issues", api.PartialOutage},
		// A surface under maintenance or unknown is no issue, as an API's.
		{[]api.Status{"operational", "operational"}, []api.Status{"maintenance", "unknown"}, "All systems operational", api.Operational},
	}
	for _, tt := range tests {
		// The statuses the banner counts are the situation's.
		var docs snapshot.Documents
		for i, s := range tt.statuses {
			doc := api.ServiceDoc{Slug: fmt.Sprintf("svc%d", i), Status: s}
			if i == 0 {
				doc.Surfaces = []api.SurfaceDoc{{ID: catalog.SurfaceAPI, Status: s}}
				for j, sf := range tt.surfaces {
					doc.Surfaces = append(doc.Surfaces, api.SurfaceDoc{ID: []catalog.SurfaceID{catalog.SurfaceApp, catalog.SurfaceAgent, catalog.SurfaceConsole}[j], Status: sf})
				}
			}
			docs.Services = append(docs.Services, doc)
		}
		m := newModel(situated(docs), nil)
		if o := m.overall(); o.Headline != tt.want || o.State.Key != tt.wantState {
			t.Errorf("%v, surfaces %v: %q (%s), want %q (%s)", tt.statuses, tt.surfaces, o.Headline, o.State.Key, tt.want, tt.wantState)
		}
	}
}

// TestDailyChart: each bar is UptimePercent over its UTC day, today up to
// the generation time; days without checks are "no data".
func TestDailyChart(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC)
	sh := &history.ServiceHistory{}
	check := func(from, to time.Time, s api.Status) {
		for at := from; at.Before(to); at = at.Add(5 * time.Minute) {
			sh.Record(at, s, nil)
		}
	}
	utc := func(day, hour int) time.Time { return time.Date(2026, 10, day, hour, 0, 0, 0, time.UTC) }
	// 28 October until 23:00 (the last check holds 15 minutes), nothing on
	// the 29th, then up from the 30th with one hour down at the end of the 31st.
	check(utc(28, 0), utc(28, 23), api.Operational)
	check(utc(30, 0), utc(31, 23), api.Operational)
	check(utc(31, 23), utc(32, 0), api.MajorOutage)
	check(utc(32, 0), now, api.Operational)
	sh.Record(now, api.Operational, nil)

	c := dailyChart("Test", sh, now)
	if len(c.Bars) != ChartDays {
		t.Fatalf("%d bars", len(c.Bars))
	}
	last := c.Bars[ChartDays-1]
	if !last.Day.Equal(utc(32, 0)) || !strings.Contains(last.Title, "today so far") {
		t.Errorf("last bar %+v", last)
	}
	// Bars from the end: class and uptime.
	for back, want := range []string{"up 100%", "partial 95.833%", "up 100%", "nodata no data", "up 100%", "nodata no data"} {
		b := c.Bars[ChartDays-1-back]
		if got := b.Class + " " + history.FormatPercent(b.Uptime); got != want {
			t.Errorf("%s: %s, want %s", b.Day.Format(time.DateOnly), got, want)
		}
	}
	for _, b := range c.Bars {
		end := b.Day.Add(24 * time.Hour)
		if end.After(now) {
			end = now
		}
		if got, want := history.FormatPercent(b.Uptime), history.FormatPercent(sh.UptimePercent(b.Day, end)); got != want {
			t.Errorf("%s: %s, UptimePercent says %s", b.Day.Format(time.DateOnly), got, want)
		}
	}
	if !strings.Contains(c.Label, "4 days with data, the lowest 95.833% on 31 Oct; 26 without data") {
		t.Errorf("label %q", c.Label)
	}
	if c := dailyChart("Test", nil, now); !strings.HasSuffix(c.Label, "no data yet.") {
		t.Errorf("label without history %q", c.Label)
	}
}

// monthText is the 30-day uptime as the page, badges and llms.txt show it.
func monthText(svc api.ServiceDoc) string {
	return uptimeFigure{Value: svc.Uptime.D30, Coverage: svc.UptimeCoverage.D30}.Text()
}

// TestModelPages: the models page shows a model failing at one provider
// and fine at another, each figure with its source, and the models nobody
// reports on as such; the index lists only the models in trouble, with the
// count of all; a service's page lists the models it makes.
func TestModelPages(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	modelRows := func(name string) []*html.Node {
		return findAll(parseHTML(t, files[name]), func(n *html.Node) bool { return hasAttr(n, "data-model") })
	}
	rows := modelRows(FileModelsPage)
	if len(rows) != len(docs.Models.Models) {
		t.Fatalf("%d model rows on the models page, want every watched model's %d", len(rows), len(docs.Models.Models))
	}
	sonnet := text(rows[0])
	for _, want := range []string{"Claude Sonnet 4.5", "Operational", "Anthropic: partial outage (60.0 %, OpenRouter over 5m)",
		"Amazon Bedrock: operational (99.9 %, OpenRouter over 5m)", "Google us-east5"} {
		if !strings.Contains(sonnet, want) {
			t.Errorf("sonnet row %q lacks %q", sonnet, want)
		}
	}
	if strings.Contains(sonnet, "AI Studio") {
		t.Errorf("sonnet row %q shows an unknown entry", sonnet)
	}
	if !strings.Contains(string(files[FileModelsPage]), "no source reports on it") {
		t.Error("the models page does not say which model no source reports on")
	}

	var troubled []string
	for _, md := range docs.Models.Models {
		if api.Troubled(md.Status) {
			troubled = append(troubled, md.ID)
		}
	}
	var listed []string
	for _, r := range modelRows(FileIndex) {
		listed = append(listed, attr(r, "data-model"))
	}
	if !slices.Equal(listed, troubled) {
		t.Errorf("the index lists models %v, want those in trouble, %v", listed, troubled)
	}
	index := string(files[FileIndex])
	if !strings.Contains(index, fmt.Sprintf("All %d watched models", len(docs.Models.Models))) || !strings.Contains(index, "No source reports on 1 of them") ||
		!strings.Contains(index, "not your key&#39;s") && !strings.Contains(index, "not your key's") {
		t.Error("the index's section does not count the models, say what is unreported, or whose figures they are")
	}

	var anthropic []string
	for _, r := range modelRows(ServicePage("anthropic")) {
		anthropic = append(anthropic, attr(r, "data-model"))
	}
	var made []string
	for _, md := range docs.Models.Models {
		if md.Service == "anthropic" {
			made = append(made, md.ID)
		}
	}
	if len(made) == 0 || !slices.Equal(anthropic, made) {
		t.Errorf("Anthropic's page lists models %v, want the ones it makes, %v", anthropic, made)
	}
}

// TestServiceIncidentsBounded: a service holding more incidents than its
// page and feed list shows the newest ServiceIncidentsMax on its page, says
// how many more the API has, and puts the newest FeedEntriesMax in its feed
// and in the feed's JSON Feed twin, the same entries.
func TestServiceIncidentsBounded(t *testing.T) {
	t.Parallel()
	docs, h := fixture(t)
	docs.Services = slices.Clone(docs.Services) // the fixture is shared
	svc := &docs.Services[0]
	start := docs.Manifest.GeneratedAt.Add(-time.Hour)
	svc.Incidents = nil
	for i := range ServiceIncidentsMax + 30 {
		started := start.Add(-time.Duration(i) * time.Hour)
		ended := started.Add(30 * time.Minute)
		svc.Incidents = append(svc.Incidents, api.Incident{ID: fmt.Sprintf("%s-%d", svc.Slug, i), Service: svc.Slug,
			Headline: fmt.Sprintf("Incident number %d", i), Severity: api.Minor, StartedAt: started, EndedAt: &ended,
			Status: "resolved", Source: api.SourceOfficial, UpdatedAt: ended})
	}
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["services/"+svc.Slug+".html"])
	if n := strings.Count(page, "Incident number "); n != ServiceIncidentsMax {
		t.Errorf("the page lists %d incidents, want %d", n, ServiceIncidentsMax)
	}
	if !strings.Contains(page, "Incident number 0<") || strings.Contains(page, fmt.Sprintf("Incident number %d<", ServiceIncidentsMax)) {
		t.Error("the page does not list the newest")
	}
	if !strings.Contains(page, "30 older incidents are not listed here") {
		t.Error("the page does not say how many more the API has")
	}
	if n := strings.Count(string(files[ServiceFeed(svc.Slug)]), "<entry>"); n != FeedEntriesMax {
		t.Errorf("the feed has %d entries, want %d", n, FeedEntriesMax)
	}
	var twin struct {
		Items []struct {
			Title string `json:"title"`
		} `json:"items"`
	}
	if err := json.Unmarshal(files[ServiceJSONFeed(svc.Slug)], &twin); err != nil {
		t.Fatal(err)
	}
	if len(twin.Items) != FeedEntriesMax {
		t.Fatalf("the JSON Feed has %d items, want %d", len(twin.Items), FeedEntriesMax)
	}
	if first, last := twin.Items[0].Title, twin.Items[FeedEntriesMax-1].Title; !strings.Contains(first, "Incident number 0") ||
		!strings.Contains(last, fmt.Sprintf("Incident number %d", FeedEntriesMax-1)) {
		t.Errorf("the JSON Feed's items run %q … %q, want the newest %d", first, last, FeedEntriesMax)
	}
}

// TestRetiredModelShown: a watched model whose announced date has come is
// shown retired, in the past tense, on the pages, in the situation and in
// the metrics, never by its providers' last status; one announced for a
// date to come keeps its status, with the date.
func TestRetiredModelShown(t *testing.T) {
	t.Parallel()
	docs, h := fixture(t)
	docs.Retirements.Retirements = append(docs.Retirements.Retirements,
		api.ModelRetirement{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Service: "anthropic", Date: "2026-10-30",
			State: api.RetirementAnnounced, Source: "openrouter-models", Reason: "announced"},
		api.ModelRetirement{ID: "cohere/command-a", Name: "Command A", Service: "cohere", Date: "2027-02-01",
			State: api.RetirementAnnounced, Source: "openrouter-models", Reason: "announced"})
	docs = situated(docs)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, n := range findAll(parseHTML(t, files[FileModelsPage]), func(n *html.Node) bool { return hasAttr(n, "data-model") }) {
		rows[attr(n, "data-model")] = text(n)
	}
	if sonnet := rows["anthropic/claude-sonnet-4.5"]; !strings.Contains(sonnet, "Retired 2026-10-30") || strings.Contains(sonnet, "Operational") {
		t.Errorf("a model past its date reads %q, want retired and no status", sonnet)
	}
	if command := rows["cohere/command-a"]; !strings.Contains(command, "Degraded") || !strings.Contains(command, "retires 2027-02-01") {
		t.Errorf("a model announced to retire reads %q, want its status and the date to come", command)
	}
	for _, sub := range docs.Situation.Subjects {
		if want := sub.Model == "anthropic/claude-sonnet-4.5"; (sub.Retired == "2026-10-30") != want {
			t.Errorf("situation %s: retired %q", sub.ID, sub.Retired)
		}
	}
	metrics := string(files[FileMetrics])
	for _, want := range []string{`aistatus_model_retired{model="anthropic/claude-sonnet-4.5"} 1`, `aistatus_model_retired{model="cohere/command-a"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
