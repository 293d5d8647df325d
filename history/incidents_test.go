package history

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// TestMergeOfficial: a read page's incidents replace what was kept of them,
// an open one it stops listing ends, no more than MaxNewIncidentsPerFeed
// new ones come in a check (the newest; one listed twice is new once), and
// an unread page changes nothing.
func TestMergeOfficial(t *testing.T) {
	t.Parallel()
	now := at(48 * time.Hour)
	official := func(id string, started time.Time) api.Incident {
		return api.Incident{ID: id, Service: "x", Headline: id, Severity: api.Minor, Status: "investigating", StartedAt: started, Source: api.SourceOfficial}
	}
	h := New()
	h.Incidents = []api.Incident{official("kept", at(0)), official("gone", at(time.Hour)), official("other service", at(time.Hour))}
	h.Incidents[2].Service = "y"
	incidents := h.IndexIncidents()

	updated := official("kept", at(0))
	updated.Status = "monitoring"
	listed := []api.Incident{updated}
	for i := range MaxNewIncidentsPerFeed + 5 {
		listed = append(listed, official(fmt.Sprintf("new-%03d", i), at(time.Duration(i)*time.Minute)))
	}

	unread := reading("", api.ProbeOK)
	unread.Incidents = listed
	if fresh, added := incidents.MergeOfficial("x", unread, now); fresh != 0 || added != 0 || len(h.Incidents) != 3 || !h.Incidents[1].Open() {
		t.Fatalf("an unread page: %d new, %d added, %d incidents, %q open %v; want nothing changed", fresh, added, len(h.Incidents), h.Incidents[1].ID, h.Incidents[1].Open())
	}

	read := reading(api.Degraded, api.ProbeOK)
	read.Incidents = listed
	fresh, added := incidents.MergeOfficial("x", read, now)
	if fresh != MaxNewIncidentsPerFeed+5 || added != MaxNewIncidentsPerFeed {
		t.Errorf("%d new, %d added; want %d, %d", fresh, added, MaxNewIncidentsPerFeed+5, MaxNewIncidentsPerFeed)
	}
	if got := incidents.Get("kept"); got == nil || got.Status != "monitoring" {
		t.Errorf("kept: %+v, want the page's update", got)
	}
	if got := incidents.Get("gone"); got == nil || got.Open() || !got.EndedAt.Equal(now) {
		t.Errorf("gone: %+v, want ended now", got)
	}
	if got := incidents.Get("other service"); got == nil || !got.Open() {
		t.Errorf("another service's incident: %+v, want it untouched", got)
	}
	for i := range 5 { // the five oldest wait for a later check
		if incidents.Get(fmt.Sprintf("new-%03d", i)) != nil {
			t.Errorf("new-%03d added, want the newest %d only", i, MaxNewIncidentsPerFeed)
		}
	}
	if incidents.Get(fmt.Sprintf("new-%03d", MaxNewIncidentsPerFeed+4)) == nil {
		t.Error("the newest incident was not added")
	}
	if fresh, added := incidents.MergeOfficial("x", read, now.Add(time.Minute)); fresh != 5 || added != 5 {
		t.Errorf("the next check: %d new, %d added; want the 5 left", fresh, added)
	}
	twice := official("twice", now)
	read.Incidents = append(read.Incidents, twice, twice)
	if fresh, added := incidents.MergeOfficial("x", read, now.Add(2*time.Minute)); fresh != 1 || added != 1 {
		t.Errorf("an incident listed twice: %d new, %d added; want 1", fresh, added)
	}
}
