package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestCheckSurfaces: the verdict covers the surface the query names, with
// that surface's status, basis and open incidents; it names the service's
// other surfaces in trouble; our probe (of the API host) and the API's
// alternatives are not used for another surface.
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
		{"claude.ai", "", "app", "down", "", []string{"agent:degraded"}, false, false,
			[]string{`Open incident "claude.ai and Claude Code unavailable"`, "The status page says major_outage for claude.ai.",
				"says nothing of claude.ai", "Also: Claude Code is up but degraded per the official status page."}},
		{"claude code", "500", "agent", "degraded", "wait", []string{"app:major_outage"}, false, false,
			[]string{"Also: claude.ai is down (major outage) per the official status page."}},
		{"claude", "", "api", "up", "proceed", []string{"app:major_outage", "agent:degraded"}, true, true,
			[]string{"Also: claude.ai is down (major outage) per the official status page; and Claude Code is up but degraded per the official status page."}},
		{"console.anthropic.com", "", "console", "unknown", "", []string{"app:major_outage", "agent:degraded"}, false, false,
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
