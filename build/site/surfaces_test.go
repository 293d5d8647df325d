package site

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"golang.org/x/net/html"
)

// TestSurfacePages: a service's surfaces other than its API get a status
// badge each (SVG and shields.io JSON), a section on the service's page,
// a line in "what is wrong now" when in trouble, and their incidents in
// the Atom feeds, tagged with the surfaces they belong to.
func TestSurfacePages(t *testing.T) {
	t.Parallel()
	docs, h := fixture(t)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct{ file, label, message, color string }{
		{"badges/anthropic-app.json", "Anthropic claude.ai", "partial outage", "orange"},
		{"badges/anthropic-agent.json", "Anthropic Claude Code", "up", "brightgreen"},
		{"badges/anthropic-console.json", "Anthropic Claude Console", "unknown", "lightgrey"},
	} {
		var got struct{ Label, Message, Color string }
		if err := json.Unmarshal(files[b.file], &got); err != nil {
			t.Fatalf("%s: %v", b.file, err)
		}
		if got.Label != b.label || got.Message != b.message || got.Color != b.color {
			t.Errorf("%s: %+v, want %+v", b.file, got, b)
		}
		svg := strings.TrimSuffix(b.file, ".json") + ".svg"
		if !strings.Contains(string(files[svg]), b.message) {
			t.Errorf("%s does not say %q", svg, b.message)
		}
	}
	// A service without surfaces has no surface badge.
	for name := range files {
		if strings.HasPrefix(name, "badges/openai-") && !strings.HasPrefix(name, "badges/openai-uptime.") {
			t.Errorf("a badge for a surface the fixture does not give OpenAI: %s", name)
		}
	}
	page := string(files[ServicePage("anthropic")])
	for _, want := range []string{`<h2 id="surfaces">Surfaces</h2>`, `data-surface="app" data-status="partial_outage"`,
		`claude.ai and Claude Code unavailable</a>`, `data-surface="console" data-status="unknown"`, "no word from the page",
		`src="../badges/anthropic-app.svg"`} {
		if !strings.Contains(page, want) {
			t.Errorf("anthropic.html lacks %q", want)
		}
	}
	if strings.Contains(string(files[ServicePage("openai")]), `id="surfaces"`) {
		t.Error("openai.html has a surfaces section, with no surface in the fixture")
	}
	index := string(files[FileIndex])
	if !strings.Contains(index, `data-surface="app"><a href="services/anthropic#surfaces">Anthropic · claude.ai</a>`) ||
		strings.Contains(index, `data-surface="agent"`) {
		t.Error("the index does not list claude.ai, and only it, among the surfaces in trouble")
	}
	// An incident of the API's that the page also links to claude.ai is
	// titled with both.
	// (The fixture is shared: the documents changed are copies.)
	docs.Services = slices.Clone(docs.Services)
	i := slices.IndexFunc(docs.Services, func(d api.ServiceDoc) bool { return d.Slug == "anthropic" })
	anthropic := &docs.Services[i]
	anthropic.Surfaces = slices.Clone(anthropic.Surfaces)
	app := &anthropic.Surfaces[1]
	app.Incidents = append(slices.Clone(app.Incidents), anthropic.Incidents[0])
	both, err := Render(situated(docs), h)
	if err != nil {
		t.Fatal(err)
	}
	if atom := string(both[ServiceFeed("anthropic")]); !strings.Contains(atom, "<title>[Anthropic · API, claude.ai] Elevated errors on Claude API</title>") ||
		!strings.Contains(atom, `<category term="surface:api"></category>`) || strings.Count(atom, "#incident-anthropic-01JANTH<") != 1 {
		t.Errorf("an incident of the API and claude.ai:\n%s", atom)
	}
	for _, feed := range []string{FileFeed, ServiceFeed("anthropic")} {
		atom := string(files[feed])
		if !strings.Contains(atom, "<title>[Anthropic · claude.ai, Claude Code] claude.ai and Claude Code unavailable</title>") ||
			!strings.Contains(atom, `<category term="surface:app"></category>`) || strings.Count(atom, "#incident-anthropic-01JAPP<") != 1 {
			t.Errorf("%s: the surface incident is missing, untagged or twice", feed)
		}
	}
}

// TestCardShowsWorstSurface: a service's card names its worst surface when
// that surface is worse than the API ("API up · claude.ai major outage"), and
// nothing more when the API is as bad or worse, or the surface is only
// under maintenance or unknown.
func TestCardShowsWorstSurface(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		apiStatus, app, code api.Status
		want                 string // "" for no line
	}{
		{"claude.ai down, API up", api.Operational, api.MajorOutage, api.Operational, "API up · claude.ai major outage"},
		{"the worst of two surfaces", api.Operational, api.Degraded, api.PartialOutage, "API up · Claude Code partial outage"},
		{"API unknown", api.Unknown, api.MajorOutage, api.Operational, "API unknown · claude.ai major outage"},
		{"the API as bad", api.MajorOutage, api.MajorOutage, api.Operational, ""},
		{"the API worse", api.MajorOutage, api.PartialOutage, api.Operational, ""},
		{"a surface under maintenance", api.Operational, api.Maintenance, api.Unknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, h := fixture(t)
			// The fixture is shared: the documents changed are copies.
			docs.Services = slices.Clone(docs.Services)
			i := slices.IndexFunc(docs.Services, func(d api.ServiceDoc) bool { return d.Slug == "anthropic" })
			anthropic := &docs.Services[i]
			anthropic.Status = tt.apiStatus
			anthropic.Surfaces = slices.Clone(anthropic.Surfaces)
			anthropic.Surfaces[0].Status, anthropic.Surfaces[1].Status, anthropic.Surfaces[2].Status = tt.apiStatus, tt.app, tt.code
			files, err := Render(situated(docs), h)
			if err != nil {
				t.Fatal(err)
			}
			cards := findAll(parseHTML(t, files[FileIndex]), func(n *html.Node) bool {
				return hasClass(n, "svc") && attr(n, "data-slug") == "anthropic"
			})
			if len(cards) != 1 {
				t.Fatalf("%d Anthropic cards", len(cards))
			}
			var got string
			if lines := findAll(cards[0], func(n *html.Node) bool { return hasClass(n, "worst-surface") }); len(lines) > 0 {
				got = text(lines[0])
			}
			if got != tt.want {
				t.Errorf("card's surface line %q, want %q", got, tt.want)
			}
		})
	}
}

// TestIndexSaysWhatDisagrees: "what is wrong now" names what overrules a
// calm page by its basis: our probes, or our measured completions.
func TestIndexSaysWhatDisagrees(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ by, want string }{
		{api.EvidenceProbe, "(our probes; its status page says “Operational”)"},
		{api.EvidenceMeasured, "(our measured completions; its status page says “Operational”)"},
	} {
		t.Run(tt.by, func(t *testing.T) {
			t.Parallel()
			docs, h := fixture(t)
			docs.Services = slices.Clone(docs.Services)
			i := slices.IndexFunc(docs.Services, func(d api.ServiceDoc) bool { return d.Slug == "perplexity" })
			d := *docs.Services[i].Sources.Disagreement
			d.By = tt.by
			docs.Services[i].Sources.Disagreement = &d
			files, err := Render(docs, h)
			if err != nil {
				t.Fatal(err)
			}
			items := findAll(parseHTML(t, files[FileIndex]), func(n *html.Node) bool {
				return n.Data == "li" && attr(n, "data-slug") == "perplexity" && !hasClass(n, "svc")
			})
			if len(items) != 1 {
				t.Fatalf("%d items for Perplexity in what is wrong now", len(items))
			}
			if got := text(items[0]); !strings.HasSuffix(got, tt.want) {
				t.Errorf("what is wrong now says %q, want it to end %q", got, tt.want)
			}
		})
	}
}

// withVantages is the fixture with three vantage points' reading of the
// first service's API host: regional, c failing while a and b reach it.
func withVantages(t *testing.T) (snapshot.Documents, *history.History) {
	t.Helper()
	docs, h := fixture(t)
	docs.Services = slices.Clone(docs.Services) // the fixture is shared
	svc := &docs.Services[0]
	at := docs.Manifest.GeneratedAt.Add(-time.Minute)
	svc.Sources.Vantages = &api.Vantages{Reading: api.VantageRegional, Reporting: 3, Reaching: 2,
		Detail: "c cannot reach the host while a and b do: a regional or path problem seen from c, not an outage.",
		Points: []api.VantagePoint{
			{Name: "a", State: api.ProbeOK, LatencyMs: new(82.0), At: at},
			{Name: "b", State: api.ProbeOK, LatencyMs: new(140.0), At: at},
			{Name: "c", State: api.ProbeFailed, At: at},
		}}
	return docs, h
}

// TestVantagesShown: a service's vantage points are in /metrics (the
// reading as a state set, each vantage's answer and latency) and on its
// page, each named with what it saw.
func TestVantagesShown(t *testing.T) {
	t.Parallel()
	docs, h := withVantages(t)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	slug := docs.Services[0].Slug
	metrics := string(files[FileMetrics])
	for _, want := range []string{
		`aistatus_service_vantage_reading{service="` + slug + `",reading="regional"} 1`,
		`aistatus_service_vantage_reading{service="` + slug + `",reading="reachable"} 0`,
		`aistatus_vantage_reaches{service="` + slug + `",vantage="a"} 1`,
		`aistatus_vantage_reaches{service="` + slug + `",vantage="c"} 0`,
		`aistatus_vantage_probe_latency_seconds{service="` + slug + `",vantage="b"} 0.14`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, `aistatus_vantage_probe_latency_seconds{service="`+slug+`",vantage="c"}`) {
		t.Error("/metrics has a latency for the vantage that failed")
	}
	if n := strings.Count(metrics, "aistatus_service_vantage_reading{"); n != len(api.VantageReadings) {
		t.Errorf("%d reading samples, want one service's %d: the others have no vantages", n, len(api.VantageReadings))
	}
	page := parseHTML(t, files[ServicePage(slug)])
	points := findAll(page, func(n *html.Node) bool { return hasAttr(n, "data-vantage") })
	var said []string
	for _, p := range points {
		said = append(said, text(p))
	}
	if len(said) != 3 || !strings.HasPrefix(said[0], "a: answered in 82 ms") || !strings.HasPrefix(said[2], "c: no answer") {
		t.Errorf("the page's vantage points: %q", said)
	}
	if !strings.Contains(text(page), "Vantage points: regional") {
		t.Error("the page does not give the vantages' reading")
	}
}
