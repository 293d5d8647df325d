package build

import (
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// TestAssembleChangeLog runs cycles of one service through a status change
// and an official incident's life, and checks the log Assemble keeps.
func TestAssembleChangeLog(t *testing.T) {
	t.Parallel()
	h := snapshot.NewHistory()
	inc := snapshot.Incident{ID: "svc-1", Service: "svc", Headline: "Errors", Severity: snapshot.Minor,
		StartedAt: asmNow, Status: "investigating", Source: snapshot.SourceOfficial}
	cycle := func(at time.Time, o Observation) {
		Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())
	}
	at := asmNow
	cycle(at, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK})
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK}) // nothing changed
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(snapshot.Degraded), Probe: probeOK, Incidents: []snapshot.Incident{inc}})
	at = at.Add(time.Minute)
	updated := inc
	updated.Severity, updated.Status = snapshot.Major, "identified"
	cycle(at, Observation{Feed: feedOK(snapshot.Degraded), Probe: probeOK, Incidents: []snapshot.Incident{updated}})
	at = at.Add(time.Minute)
	cycle(at, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK}) // no longer listed: resolved

	type entry struct {
		typ      snapshot.ChangeType
		old, new snapshot.Status
		changed  []string
		minute   int
	}
	want := []entry{
		{snapshot.ChangeStatus, "", snapshot.Operational, nil, 0},
		{snapshot.ChangeStatus, snapshot.Operational, snapshot.Degraded, nil, 2},
		{snapshot.ChangeIncidentOpened, "", "", nil, 2},
		{snapshot.ChangeIncidentUpdated, "", "", []string{"severity", "status"}, 3},
		{snapshot.ChangeStatus, snapshot.Degraded, snapshot.Operational, nil, 4},
		{snapshot.ChangeIncidentResolved, "", "", []string{"status"}, 4},
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
		if (c.Incident != nil) != (c.Type != snapshot.ChangeStatus) {
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
		want snapshot.Status
	}{
		{asmNow.Add(90 * time.Second), snapshot.Operational},
		{asmNow.Add(2 * time.Minute), snapshot.Degraded},
		{asmNow.Add(3*time.Minute + 59*time.Second), snapshot.Degraded},
		{asmNow.Add(time.Hour), snapshot.Operational},
	} {
		if got, _, ok := snapshot.StatusAt(h.Changes, "svc", c.at, snapshot.Operational); !ok || got != c.want {
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
	var list snapshot.ChangeList
	h.read(snapshot.FileChanges, &list)
	if len(list.Changes) != len(first.Changes) || list.LastID != first.Changes[len(first.Changes)-1].ID {
		t.Errorf("changes.json has %d entries, last id %d; the build logged %d", len(list.Changes), list.LastID, len(first.Changes))
	}
	// The world goes down for one service: the next builds log its change
	// with ids after the first build's.
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = snapshot.MajorOutage })
	second := h.cycle()
	if len(second.Changes) == 0 || second.Changes[0].ID <= list.LastID {
		t.Fatalf("second build's changes %+v do not follow id %d", second.Changes, list.LastID)
	}
	// Ninety-one days later everything old is pruned, yet ids go on.
	h.clock.Advance(snapshot.KeepChanges + 24*time.Hour)
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = snapshot.Operational })
	third := h.cycle()
	if len(third.Changes) == 0 || third.Changes[0].ID <= second.Changes[len(second.Changes)-1].ID {
		t.Fatalf("ids after pruning: %+v", third.Changes)
	}
	var hist snapshot.History
	h.read(snapshot.FileHistory, &hist)
	for _, c := range hist.Changes {
		if c.ID <= second.Changes[len(second.Changes)-1].ID {
			t.Errorf("change %d older than %s kept", c.ID, snapshot.KeepChanges)
		}
	}
}
