package check

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestCheckSurfaces: the verdict covers the surface the query names, with
// that surface's status, basis and open incidents; it names the service's
// other surfaces in trouble; another surface is probed at its own host
// (none for an agent), never the API host, and the API's alternatives are
// not used for it.
func TestCheckSurfaces(t *testing.T) {
	t.Parallel()
	engine, view, prober := newTestEngine(t)
	down := api.Incident{ID: "anthropic-x1", Service: "anthropic", Headline: "claude.ai and Claude Code unavailable",
		Severity: api.Critical, StartedAt: genTime.Add(-10 * time.Minute), Status: "investigating", Source: api.SourceOfficial}
	sum := view.summaries["anthropic"]
	sum.Surfaces = []api.SurfaceSummary{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{down}},
		{ID: catalog.SurfaceAgent, Name: "Claude Code", Status: api.Degraded, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{down}},
		// The console is missing: a snapshot written before it was in the catalog.
	}
	view.summaries["anthropic"] = sum
	anthropic, _ := engine.cat.Lookup("anthropic")
	for _, tt := range []struct {
		q, err                 string
		surface, level, action string
		others                 []string
		probed                 bool
		alternatives           bool
		says                   []string // in the evidence or the detail
	}{
		{"claude.ai", "", "app", "down", "", []string{"agent:degraded"}, true, false,
			[]string{`Open incident "claude.ai and Claude Code unavailable"`, "The status page says major_outage for claude.ai.",
				"Our probe of claude.ai's host answered in 120 ms", "which does not show that claude.ai works",
				"Also: Claude Code is up but degraded per the official status page."}},
		{"claude code", "500", "agent", "degraded", "wait", []string{"app:major_outage"}, false, false,
			[]string{"Also: claude.ai is down (major outage) per the official status page.", "says nothing of Claude Code"}},
		{"claude", "", "api", "up", "proceed", []string{"app:major_outage", "agent:degraded"}, true, true,
			[]string{"Also: claude.ai is down (major outage) per the official status page; and Claude Code is up but degraded per the official status page."}},
		{"console.anthropic.com", "", "console", "unknown", "", []string{"app:major_outage", "agent:degraded"}, true, false,
			[]string{"This snapshot has no status for Claude Console"}},
	} {
		// For a surface, the API's read of the page failed this cycle and
		// the surface's did not: nothing in the verdict may say the page
		// could not be read.
		sum := view.summaries["anthropic"]
		sum.Feed = api.FeedOK
		if tt.surface != "api" {
			sum.Feed = api.FeedError
		}
		view.summaries["anthropic"] = sum
		before := prober.probes.Load()
		doc, err := engine.Check(view, Request{Query: tt.q, Error: tt.err})
		if err != nil {
			t.Fatal(err)
		}
		var others []string
		for _, o := range doc.OtherSurfaces {
			others = append(others, string(o.ID)+":"+string(o.Status))
		}
		v := doc.Verdict
		switch {
		case doc.Surface == nil || string(doc.Surface.ID) != tt.surface || doc.Surface.Name != anthropic.SurfaceName(doc.Surface.ID):
			t.Errorf("%s: surface %+v, want %s", tt.q, doc.Surface, tt.surface)
		case v.Level != tt.level || (tt.action != "" && v.Action != tt.action) || string(*doc.Status) != statusOf(sum, doc.Surface.ID):
			t.Errorf("%s: level %s action %s status %s, want %s %s", tt.q, v.Level, v.Action, *doc.Status, tt.level, tt.action)
		case !slices.Equal(others, tt.others):
			t.Errorf("%s: other surfaces %v, want %v", tt.q, others, tt.others)
		case (prober.probes.Load() > before) != tt.probed || (doc.LatencyMs != nil) != tt.probed:
			t.Errorf("%s: probed %v, latency %v; want probed %v", tt.q, prober.probes.Load() > before, doc.LatencyMs, tt.probed)
		case (len(v.Alternatives) > 0) != tt.alternatives:
			t.Errorf("%s: alternatives %v", tt.q, v.Alternatives)
		}
		text := v.Detail
		for _, e := range v.Evidence {
			text += "\n" + e.Says
		}
		for _, s := range tt.says {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q not in\n%s", tt.q, s, text)
			}
		}
		if tt.surface != "api" && strings.Contains(text, "could not be read") {
			t.Errorf("%s: the API's page failure is told of a surface:\n%s", tt.q, text)
		}
	}
}

// statusOf is the status of surface id in sum; unknown when it is missing.
func statusOf(sum api.ServiceSummary, id catalog.SurfaceID) string {
	for _, sf := range sum.Surfaces {
		if sf.ID == id {
			return string(sf.Status)
		}
	}
	return string(api.Unknown)
}

// TestSurfaceProbesItsOwnHost: /check on claude.ai or a console probes
// that surface's own host (loopback fakes here), through the live-probe
// cache, and gives its latency; the API host is not asked. An answer, a bot
// challenge's 403 included, only shows that the host answers: the status
// stays the page's word, unknown where the snapshot has none. A host that
// fails leaves the latency null and says so.
func TestSurfaceProbesItsOwnHost(t *testing.T) {
	t.Parallel()
	apiHost, apiHits := countingAPI(t)
	var appHits, consoleHits atomic.Int64
	challenge := func(hits *atomic.Int64) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte("<html><title>Just a moment...</title></html>"))
		}))
		t.Cleanup(s.Close)
		return s
	}
	app, console := challenge(&appHits), challenge(&consoleHits)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()

	cat := testCatalog(t)
	for i, svc := range cat.Services {
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for j := range svc.Surfaces {
			switch sf := &svc.Surfaces[j]; {
			case svc.Slug == "anthropic" && sf.ID == catalog.SurfaceApp:
				sf.ProbeURL = app.URL + "/"
			case svc.Slug == "anthropic" && sf.ID == catalog.SurfaceConsole:
				sf.ProbeURL = console.URL + "/"
			case sf.ProbeURL != "":
				sf.ProbeURL = closed.URL + "/"
			}
		}
		if svc.ProbeURL != "" {
			svc.ProbeURL = apiHost.URL + "/" + svc.Slug
		}
		cat.Services[i] = svc
	}
	clock := &testClock{}
	clock.Set(genTime.Add(time.Minute))
	engine := New(cat, NewCache(app.Client(), time.Second, clock.Now, nil), clock.Now, FromServer)
	view := testView(cat)
	sum := view.summaries["anthropic"]
	sum.Surfaces = []api.SurfaceSummary{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
		// The console has no word from the page this time.
		{ID: catalog.SurfaceConsole, Name: "Claude Console", Status: api.Unknown, Basis: api.BasisNone, OpenIncidents: []api.Incident{}},
	}
	view.summaries["anthropic"] = sum

	for _, tt := range []struct {
		q                    string
		status               api.Status
		latency              bool
		appHits, consoleHits int64
		says                 string
	}{
		{"claude.ai", api.MajorOutage, true, 1, 0, "Our probe of claude.ai's host answered in"},
		// Within LiveTTL: the cached answer, no second request.
		{"https://claude.ai/new", api.MajorOutage, true, 1, 0, "(HTTP 403; the probe sends no key): the host answers, which does not show that claude.ai works."},
		{"platform.claude.com", api.Unknown, true, 1, 1, "our probe of its host shows only whether it answers"},
		{"chatgpt", api.Unknown, false, 1, 1, "Our probe of ChatGPT's host failed:"},
	} {
		doc, err := engine.Check(view, Request{Query: tt.q})
		if err != nil {
			t.Fatal(err)
		}
		text := doc.Verdict.Detail
		for _, e := range doc.Verdict.Evidence {
			text += "\n" + e.Says
		}
		switch {
		case *doc.Status != tt.status:
			t.Errorf("%s: status %s, want %s: a host that answers is not a status", tt.q, *doc.Status, tt.status)
		case (doc.LatencyMs != nil) != tt.latency || (doc.LatencyCheckedAt != nil) != tt.latency:
			t.Errorf("%s: latency %v at %v, want a number: %v", tt.q, doc.LatencyMs, doc.LatencyCheckedAt, tt.latency)
		case appHits.Load() != tt.appHits || consoleHits.Load() != tt.consoleHits || apiHits.Load() != 0:
			t.Errorf("%s: app host asked %d times, console host %d, API host %d; want %d, %d, 0",
				tt.q, appHits.Load(), consoleHits.Load(), apiHits.Load(), tt.appHits, tt.consoleHits)
		case !strings.Contains(text, tt.says):
			t.Errorf("%s: %q not in\n%s", tt.q, tt.says, text)
		}
	}
}

// TestCheckNamesAComponent: the vendor's claude.ai component is down
// while Claude Cowork, in the same claude.ai surface, is up, so the
// surface reads partial. A query naming the component exactly, by name
// or by a URL on its host, is answered with the component's word and says
// so; one naming the surface by another of its names keeps the surface's.
// The statusline says the same.
func TestCheckNamesAComponent(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	sum := view.summaries["anthropic"]
	sum.Surfaces = []api.SurfaceSummary{
		{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
		{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.PartialOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{},
			Components: []api.SurfaceComponent{{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.MajorOutage},
				{ID: "bpp5gb3hpjcl", Name: "Claude Cowork", Status: api.Operational}}},
		{ID: catalog.SurfaceAgent, Name: "Claude Code", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{},
			Components: []api.SurfaceComponent{{ID: "yyzkbfz2thpt", Name: "Claude Code", Status: api.Operational}}},
	}
	view.summaries["anthropic"] = sum
	for _, tt := range []struct {
		q                string
		component        string
		status           api.Status
		headline, detail string
		line             string
	}{
		{"claude.ai", "claude.ai", api.MajorOutage, "claude.ai is down (major outage)",
			`The verdict is the official page's component "claude.ai", which the query names; the claude.ai surface, which also holds Claude Cowork, is partly down (partial outage).`,
			"🔴 claude.ai major outage"},
		{"https://claude.ai/new", "claude.ai", api.MajorOutage, "claude.ai is down (major outage)", `component "claude.ai"`, ""},
		{"Claude Cowork", "Claude Cowork", api.Operational, "Claude Cowork is up",
			`The verdict is the official page's component "Claude Cowork", which the query names; the claude.ai surface, which also holds claude.ai, is partly down (partial outage).`, ""},
		// The surface by another of its names: the surface's word.
		{"claude app", "", api.PartialOutage, "claude.ai is partly down (partial outage)", "", "🟠 claude.ai partial outage"},
		{"cowork", "", api.PartialOutage, "claude.ai is partly down", "", ""},
		// A surface of one component is that component.
		{"claude code", "", api.Operational, "Claude Code is up", "", ""},
	} {
		doc, err := engine.Check(view, Request{Query: tt.q})
		if err != nil {
			t.Fatal(err)
		}
		v := doc.Verdict
		if doc.Surface == nil || doc.Surface.Component != tt.component || *doc.Status != tt.status ||
			!strings.HasPrefix(v.Headline, tt.headline) || !strings.Contains(v.Detail, tt.detail) {
			t.Errorf("%s: surface %+v, status %s, %q / %q; want component %q, %s, %q / %q",
				tt.q, doc.Surface, *doc.Status, v.Headline, v.Detail, tt.component, tt.status, tt.headline, tt.detail)
		}
		if tt.component == "" && strings.Contains(v.Detail, "component") {
			t.Errorf("%s: a query naming the surface is told of a component: %q", tt.q, v.Detail)
		}
		if tt.line != "" {
			if line, err := engine.Statusline(view, []string{tt.q}); err != nil || !strings.HasPrefix(line, tt.line) {
				t.Errorf("%s: statusline %q %v, want %q…", tt.q, line, err, tt.line)
			}
		}
	}
}
