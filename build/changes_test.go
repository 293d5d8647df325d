package build

import (
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// TestAssembleChangeLog runs cycles of one service through a status change
// and an official incident's life, and checks the log Assemble keeps.
func TestAssembleChangeLog(t *testing.T) {
	t.Parallel()
	h := history.New()
	inc := api.Incident{ID: "svc-1", Service: "svc", Headline: "Errors", Severity: api.Minor,
		StartedAt: asmNow, Status: "investigating", Source: api.SourceOfficial}
	cycle := func(at time.Time, o Observation) {
		Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())
	}
	at := asmNow
	cycle(at, Observation{Feed: feedOK(api.Operational), Probe: probeOK})
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(api.Operational), Probe: probeOK}) // nothing changed
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(api.Degraded), Probe: probeOK, Incidents: []api.Incident{inc}})
	at = at.Add(time.Minute)
	updated := inc
	updated.Severity, updated.Status = api.Major, "identified"
	cycle(at, Observation{Feed: feedOK(api.Degraded), Probe: probeOK, Incidents: []api.Incident{updated}})
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(api.Operational), Probe: probeOK}) // no longer listed: resolved

	type entry struct {
		typ      api.ChangeType
		old, new api.Status
		changed  []string
		minute   int
	}
	want := []entry{
		{api.ChangeStatus, "", api.Operational, nil, 0},
		{api.ChangeStatus, api.Operational, api.Degraded, nil, 2},
		{api.ChangeIncidentOpened, "", "", nil, 2},
		{api.ChangeIncidentUpdated, "", "", []string{"severity", "status"}, 3},
		{api.ChangeStatus, api.Degraded, api.Operational, nil, 4},
		{api.ChangeServiceRecovered, api.Degraded, api.Operational, nil, 4},
		{api.ChangeIncidentResolved, "", "", []string{"status"}, 4},
	}
	if len(h.Changes) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(h.Changes), len(want), h.Changes)
	}
	for i, w := range want {
		c := h.Changes[i]
		if c.Type != w.typ || c.OldStatus != w.old || c.NewStatus != w.new || !slices.Equal(c.Changed, w.changed) ||
			!c.Time.Equal(asmNow.Add(time.Duration(w.minute)*time.Minute)) || c.Service != "svc" {
			t.Errorf("change %d = %+v, want %+v", i, c, w)
		}
		if i > 0 && c.ID != h.Changes[i-1].ID+1 {
			t.Errorf("change %d: id %d does not follow %d", i, c.ID, h.Changes[i-1].ID)
		}
		if (c.Incident != nil) != (c.Type != api.ChangeStatus && c.Type != api.ChangeServiceRecovered) {
			t.Errorf("change %d: incident payload %v", i, c.Incident)
		}
	}
	if last := h.Changes[len(h.Changes)-1]; last.Incident.EndedAt == nil || h.NextChangeID != last.ID+1 {
		t.Errorf("resolved payload %+v, next id %d", last.Incident, h.NextChangeID)
	}
	if !h.ChangesSince.Equal(asmNow) {
		t.Errorf("log starts %s, want %s", h.ChangesSince, asmNow)
	}

	// What we reported then, from the log.
	for _, c := range []struct {
		at   time.Time
		want api.Status
	}{
		{asmNow.Add(90 * time.Second), api.Operational},
		{asmNow.Add(2 * time.Minute), api.Degraded},
		{asmNow.Add(3*time.Minute + 59*time.Second), api.Degraded},
		{asmNow.Add(time.Hour), api.Operational},
	} {
		if got, _, ok := history.StatusAt(h.Changes, "svc", c.at, api.Operational); !ok || got != c.want {
			t.Errorf("status at %s = %s %v, want %s", c.at, got, ok, c.want)
		}
	}
}

// TestChangeLogIDsSurviveBuilds checks that ids go on across builds and are
// never reused, even after the log was pruned empty, and that changes.json
// is published.
func TestChangeLogIDsSurviveBuilds(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	first := h.cycle()
	if len(first.Changes) < len(h.world.Catalog.Services) {
		t.Fatalf("first build logged %d changes, want one per service at least", len(first.Changes))
	}
	var list api.ChangeList
	h.read(snapshot.FileChanges, &list)
	if len(list.Changes) != len(first.Changes) || list.LastID != first.Changes[len(first.Changes)-1].ID {
		t.Errorf("changes.json has %d entries, last id %d; the build logged %d", len(list.Changes), list.LastID, len(first.Changes))
	}
	// The world goes down for one service: the next builds log its change
	// with ids after the first build's.
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	second := h.cycle()
	if len(second.Changes) == 0 || second.Changes[0].ID <= list.LastID {
		t.Fatalf("second build's changes %+v do not follow id %d", second.Changes, list.LastID)
	}
	// Ninety-one days later everything old is pruned, yet ids go on.
	h.clock.Advance(history.KeepChanges + 24*time.Hour)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.Operational })
	third := h.cycle()
	if len(third.Changes) == 0 || third.Changes[0].ID <= second.Changes[len(second.Changes)-1].ID {
		t.Fatalf("ids after pruning: %+v", third.Changes)
	}
	var hist history.History
	h.read(snapshot.FileHistory, &hist)
	for _, c := range hist.Changes {
		if c.ID <= second.Changes[len(second.Changes)-1].ID {
			t.Errorf("change %d older than %s kept", c.ID, history.KeepChanges)
		}
	}
}

// TestAssembleSurfaceChanges runs cycles of Anthropic whose API stays
// operational while claude.ai goes down and comes back: each surface
// transition is one surface.status.changed of that surface (the first check
// without an old status), a failed read is a move to unknown, claude.ai's
// return from its outage is a surface.recovered, and the API, which never
// moved, has its first check only.
func TestAssembleSurfaceChanges(t *testing.T) {
	t.Parallel()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := def.Lookup("anthropic")
	cat := catalog.Catalog{Services: []catalog.Service{svc}}
	surfaces := func(app api.Status, appErr error) []feed.SurfaceResult {
		return []feed.SurfaceResult{{ID: catalog.SurfaceApp, Status: app, Err: appErr},
			{ID: catalog.SurfaceAgent, Status: api.Operational}, {ID: catalog.SurfaceConsole, Status: api.Operational}}
	}
	h := history.New()
	cycles := []struct {
		app    api.Status
		appErr error
	}{
		{api.Operational, nil},
		{api.Operational, nil}, // nothing moved
		{api.MajorOutage, nil},
		{api.MajorOutage, nil},
		{api.MajorOutage, errTest("HTTP 503")}, // not read: the page's last word stands in
		{api.Operational, nil},
	}
	for i, c := range cycles {
		Assemble(h, cat, map[string]Observation{"anthropic": {Feed: feedOK(api.Operational), Probe: probeOK, Surfaces: surfaces(c.app, c.appErr)}},
			asmNow.Add(time.Duration(i)*time.Minute), zerolog.Nop())
	}
	type entry struct {
		typ      api.ChangeType
		surface  catalog.SurfaceID
		old, new api.Status
		minute   int
	}
	want := []entry{
		{api.ChangeStatus, "", "", api.Operational, 0},
		{api.ChangeSurfaceStatus, catalog.SurfaceApp, "", api.Operational, 0},
		{api.ChangeSurfaceStatus, catalog.SurfaceAgent, "", api.Operational, 0},
		{api.ChangeSurfaceStatus, catalog.SurfaceConsole, "", api.Operational, 0},
		{api.ChangeSurfaceStatus, catalog.SurfaceApp, api.Operational, api.MajorOutage, 2},
		// The unread cycle changed nothing: back from the outage at once.
		{api.ChangeSurfaceStatus, catalog.SurfaceApp, api.MajorOutage, api.Operational, 5},
		{api.ChangeSurfaceRecovered, catalog.SurfaceApp, api.MajorOutage, api.Operational, 5},
	}
	var got []entry
	for _, c := range h.Changes {
		if c.Service != "anthropic" || c.Model != nil {
			t.Errorf("change %+v: not Anthropic's", c)
		}
		got = append(got, entry{c.Type, c.Surface, c.OldStatus, c.NewStatus, int(c.Time.Sub(asmNow) / time.Minute)})
	}
	if !slices.Equal(got, want) {
		t.Errorf("change log:\n got %v\nwant %v", got, want)
	}
	if c := h.Changes[4]; c.Subject() != "anthropic/app" {
		t.Errorf("claude.ai's outage has subject %q, want anthropic/app", c.Subject())
	}
}
