package build

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// TestSurfaceDocs: the API surface is the service itself; another surface
// has the page's word when the page was read for it, and is unknown with
// basis none (and a source saying why) when it was not: never the API's
// status borrowed, never a word held from an earlier cycle.
func TestSurfaceDocs(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := cat.Lookup("anthropic")
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	// A history of an hour: the API operational, claude.ai down for the
	// last half hour; the agent's reads failed (unknown, left out).
	h := history.New()
	sh := h.Track("anthropic")
	for at := now.Add(-time.Hour); !at.After(now); at = at.Add(10 * time.Minute) {
		sh.Record(at, api.Operational, nil)
		app := api.Operational
		if at.After(now.Add(-30 * time.Minute)) {
			app = api.MajorOutage
		}
		recordSurfaces(h, "anthropic", sh, []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: app},
			{ID: catalog.SurfaceAgent, Status: api.Operational, Err: errTest("failed")}}, nil, false, at)
	}
	open := api.Incident{ID: "anthropic-a", Service: "anthropic", Headline: "claude.ai down", StartedAt: now.Add(-time.Hour)}
	ended := now.Add(-time.Minute)
	closed := api.Incident{ID: "anthropic-b", Service: "anthropic", Headline: "Claude Code slow", StartedAt: now.Add(-2 * time.Hour), EndedAt: &ended}
	st := ServiceState{
		Status: api.Operational, Basis: api.BasisOfficial, CheckedAt: now,
		Sources: api.Sources{Feed: api.FeedSource{State: api.FeedOK}},
		Components: []api.Component{
			{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.MajorOutage},
			{ID: "k8w3r06qmzrp", Name: "Claude API (api.anthropic.com)", Status: api.Operational, InScope: true},
		},
		Surfaces: []feed.SurfaceResult{
			{ID: catalog.SurfaceApp, Status: api.MajorOutage, Incidents: []api.Incident{open},
				Components: []api.Component{{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.MajorOutage, InScope: true}}},
			{ID: catalog.SurfaceAgent, Status: api.Unknown, Err: &feed.Error{Kind: api.FailureScope, Err: errTest("nothing in scope")}},
			// The console has no result: unknown too.
		},
	}
	recordSurfaces(h, "anthropic", sh, st.Surfaces, nil, false, now) // this cycle's incidents, as Assemble records them
	docs := surfaceDocs(svc, st, sh, sh.Uptime(now), sh.Coverage(now), []api.Incident{closed}, now)
	type row struct {
		id     catalog.SurfaceID
		status api.Status
		basis  api.Basis
		comps  int
		incs   int
		uptime string // 24 h
		source string
	}
	want := []row{
		{"api", api.Operational, api.BasisOfficial, 1, 1, "100%", "API's scope"},
		// Down for 20 of the 60 minutes credited (the last check's
		// status is credited by the next).
		{"app", api.MajorOutage, api.BasisOfficial, 1, 1, "66.666%", "as read at 2026-11-01T12:00:00Z"},
		// Unknown time is left out: no data, not 0 %.
		{"agent", api.Unknown, api.BasisNone, 0, 0, "no data", "scope_matched_nothing: nothing in scope"},
		{"console", api.Unknown, api.BasisNone, 0, 0, "no data", "no word on this surface"},
	}
	if len(docs) != len(want) {
		t.Fatalf("%d surfaces, want %d", len(docs), len(want))
	}
	for i, d := range docs {
		w := want[i]
		if d.ID != w.id || d.Status != w.status || d.Basis != w.basis || len(d.Components) != w.comps || len(d.Incidents) != w.incs ||
			history.FormatPercent(d.Uptime.H24) != w.uptime || !strings.Contains(d.Source, w.source) || d.Components == nil || d.Incidents == nil {
			t.Errorf("surface %d: %+v, want %+v", i, d, w)
		}
	}
	if docs[1].DataSince == nil || !docs[1].DataSince.Equal(now.Add(-time.Hour)) || docs[3].DataSince != nil {
		t.Errorf("dataSince: app %v, console %v", docs[1].DataSince, docs[3].DataSince)
	}
	sums := surfaceSummaries(docs)
	if len(sums[0].OpenIncidents) != 0 || len(sums[1].OpenIncidents) != 1 || sums[1].OpenIncidents[0].ID != "anthropic-a" || sums[2].OpenIncidents == nil {
		t.Errorf("open incidents: %+v", sums)
	}
	// The app's components go to status.json, for /check to answer a query
	// naming one of them; the API's stay in the service's document.
	if sums[0].Components != nil || len(sums[1].Components) != 1 || sums[1].Components[0].Name != "claude.ai" ||
		sums[1].Components[0].Status != api.MajorOutage || sums[2].Components != nil {
		t.Errorf("components: api %+v, app %+v, agent %+v", sums[0].Components, sums[1].Components, sums[2].Components)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// TestSurfaceIncidentsKept: a surface's incidents are kept in the history
// across cycles: updated while the page lists them, ended when a read of
// the page for the surface no longer does, kept as they were while it
// cannot be read, and pruned like the service's.
func TestSurfaceIncidentsKept(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	inc := api.Incident{ID: "anthropic-x", Service: "anthropic", Headline: "claude.ai down", Severity: api.Major,
		StartedAt: start.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: start}
	updated := inc
	updated.Status, updated.UpdatedAt = "identified", start.Add(time.Minute)
	h := history.New()
	sh := h.Track("anthropic")
	app := func(err error, incs ...api.Incident) []feed.SurfaceResult {
		return []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.MajorOutage, Incidents: incs, Err: err}}
	}
	steps := []struct {
		name    string
		results []feed.SurfaceResult
		status  string
		ended   bool
	}{
		{"listed", app(nil, inc), "investigating", false},
		{"updated", app(nil, updated), "identified", false},
		{"the page could not be read", app(errTest("HTTP 503")), "identified", false},
		{"no longer listed", app(nil), "resolved", true},
		{"still not listed", app(nil), "resolved", true},
	}
	for i, step := range steps {
		now := start.Add(time.Duration(i+1) * time.Minute)
		recordSurfaces(h, "anthropic", sh, step.results, nil, false, now)
		got := sh.LookupSurface(catalog.SurfaceApp).Incidents
		if len(got) != 1 || got[0].Status != step.status || (got[0].EndedAt != nil) != step.ended {
			t.Fatalf("%s: %+v", step.name, got)
		}
		if step.ended && !got[0].EndedAt.Equal(start.Add(4*time.Minute)) {
			t.Errorf("%s: ended %v, want the first read without it", step.name, got[0].EndedAt)
		}
	}
	// Its opening, update and resolution are in the change log, naming
	// the surface; the unreadable page and the read that still does not
	// list it change nothing.
	var logged []string
	for _, c := range h.Changes {
		if c.Incident != nil {
			logged = append(logged, fmt.Sprintf("%s %s %s %v", c.Type, c.Subject(), c.Incident.ID, c.Changed))
		}
	}
	if want := []string{"incident.opened anthropic/app anthropic-x []", "incident.updated anthropic/app anthropic-x [status]",
		"incident.resolved anthropic/app anthropic-x [status]"}; !slices.Equal(logged, want) {
		t.Errorf("change log %q\nwant %q", logged, want)
	}
	h.Prune(start.Add(history.KeepIncidents + time.Hour))
	if n := len(sh.LookupSurface(catalog.SurfaceApp).Incidents); n != 0 {
		t.Errorf("%d incidents kept past KeepIncidents", n)
	}
}

// TestSurfaceIncidentOfTheService: an incident the service's scope lists
// too (one that hits the API and claude.ai) is logged once, as the
// service's, not again for the surface.
func TestSurfaceIncidentOfTheService(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	both := api.Incident{ID: "anthropic-y", Service: "anthropic", Headline: "Elevated errors", Severity: api.Major,
		StartedAt: now.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: now}
	own := both
	own.ID, own.Headline = "anthropic-z", "claude.ai login errors"
	h := history.New()
	sh := h.Track("anthropic")
	recordSurfaces(h, "anthropic", sh, []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.MajorOutage, Incidents: []api.Incident{both, own}}},
		func(id string) bool { return id == both.ID }, false, now)
	var logged []string
	for _, c := range h.Changes {
		if c.Incident != nil {
			logged = append(logged, c.Subject()+" "+c.Incident.ID)
		}
	}
	if want := []string{"anthropic/app anthropic-z"}; !slices.Equal(logged, want) {
		t.Errorf("change log %q, want %q", logged, want)
	}
}

// TestSurfaceIncidentsCapped: a page that suddenly lists thousands of
// fresh incidents adds at most history.MaxNewIncidentsPerFeed a cycle to
// a surface, the newest first, as to its service: every one of them is
// published in the service's document and kept in the history. An
// incident listed twice is added once.
func TestSurfaceIncidentsCapped(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	const listed = history.MaxNewIncidentsPerFeed + 300
	var incs []api.Incident
	for i := range listed {
		incs = append(incs, api.Incident{ID: fmt.Sprintf("anthropic-flood-%d", i), Service: "anthropic", Headline: "claude.ai down",
			Severity: api.Major, StartedAt: start.Add(time.Duration(i-listed) * time.Minute), Status: "investigating",
			Source: api.SourceOfficial, UpdatedAt: start})
	}
	twice := append(slices.Clone(incs), incs[listed-1])
	h := history.New()
	sh := h.Track("anthropic")
	for cycle, want := range []int{history.MaxNewIncidentsPerFeed, listed, listed} {
		recordSurfaces(h, "anthropic", sh, []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.MajorOutage, Incidents: twice}}, nil, false, start.Add(time.Duration(cycle)*time.Minute))
		got := sh.LookupSurface(catalog.SurfaceApp).Incidents
		ids := map[string]bool{}
		for _, inc := range got {
			if ids[inc.ID] {
				t.Fatalf("cycle %d: %s kept twice", cycle, inc.ID)
			}
			ids[inc.ID] = true
		}
		if len(got) != want {
			t.Fatalf("cycle %d: %d incidents kept, want %d", cycle, len(got), want)
		}
		if cycle == 0 && (!ids[incs[listed-1].ID] || ids[incs[0].ID]) {
			t.Errorf("cycle 0 kept the oldest before the newest")
		}
	}
}

// TestSurfaceWordHeld: a surface its page could not be read for keeps the
// page's last word for history.MaxHold, as the API does (DecideStatus's rule
// 4), and its document says so; past the hold, or with our own network
// down (nothing was checked), it is unknown.
func TestSurfaceWordHeld(t *testing.T) {
	t.Parallel()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := def.Lookup("anthropic")
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	failed := []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.Unknown, Err: errTest("HTTP 503")}}
	for _, tc := range []struct {
		name    string
		after   time.Duration
		offline bool
		want    api.Status
	}{
		{"within the hold", history.MaxHold, false, api.MajorOutage},
		{"past the hold", history.MaxHold + time.Minute, false, api.Unknown},
		{"our own network down", time.Minute, true, api.Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := history.New()
			sh := h.Track("anthropic")
			recordSurfaces(h, "anthropic", sh, []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: api.MajorOutage}}, nil, false, start)
			now := start.Add(tc.after)
			recordSurfaces(h, "anthropic", sh, failed, nil, tc.offline, now)
			if got := sh.LookupSurface(catalog.SurfaceApp).LastStatus; got != tc.want {
				t.Errorf("recorded %s, want %s", got, tc.want)
			}
			st := ServiceState{Status: api.Operational, Basis: api.BasisOfficial, Surfaces: failed, CheckedAt: now}
			for _, d := range surfaceDocs(svc, st, sh, api.Uptime{}, api.Coverage{}, nil, now) {
				if d.ID != catalog.SurfaceApp {
					continue
				}
				held := tc.want != api.Unknown
				if d.Status != tc.want || (d.Basis == api.BasisOfficial) != held || strings.Contains(d.Source, "stands in") != held {
					t.Errorf("document: %s, basis %s, %q; want %s, held %v", d.Status, d.Basis, d.Source, tc.want, held)
				}
			}
		})
	}
}
