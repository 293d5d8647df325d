package site

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// TestMaintenanceWindowAcrossBuilds: a window keeps its id from the build
// that opened it to the one that closed it, and its sequence goes from 0
// to 1 as it gains its end; windows come from the change log alone.
func TestMaintenanceWindowAcrossBuilds(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	h := history.New()
	h.AddChange(api.Change{Type: api.ChangeStatus, Service: "groq", Time: start.Add(-time.Hour), NewStatus: api.Operational})
	h.AddChange(api.Change{Type: api.ChangeStatus, Service: "groq", Time: start, OldStatus: api.Operational, NewStatus: api.Maintenance})
	during := []api.ServiceDoc{{Slug: "groq", Status: api.Maintenance}}

	open := maintenanceWindows(h, during, start.Add(10*time.Minute))["groq"]
	later := maintenanceWindows(h, during, start.Add(50*time.Minute))["groq"]
	if len(open) != 1 || !open[0].Open() || open[0].Sequence() != 0 || open[0] != later[0] {
		t.Fatalf("during: %+v, later %+v; want one open window, sequence 0, the same in both builds", open, later)
	}

	end := start.Add(time.Hour)
	h.AddChange(api.Change{Type: api.ChangeStatus, Service: "groq", Time: end, OldStatus: api.Maintenance, NewStatus: api.Operational})
	closed := maintenanceWindows(h, []api.ServiceDoc{{Slug: "groq", Status: api.Operational}}, end.Add(time.Minute))["groq"]
	if len(closed) != 1 || closed[0].Open() || !closed[0].End.Equal(end) || closed[0].Sequence() != 1 || closed[0].ID() != open[0].ID() {
		t.Fatalf("after: %+v; want the same window (id %s) closed at %v, sequence 1", closed, open[0].ID(), end)
	}
}

// TestMaintenanceWindowWithoutLog: a service under maintenance before the
// log began gets a window from the log's start, stable across builds.
func TestMaintenanceWindowWithoutLog(t *testing.T) {
	t.Parallel()
	begun := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	h := history.New()
	h.StartChangeLog(begun)
	docs := []api.ServiceDoc{{Slug: "mistral", Status: api.Maintenance}, {Slug: "groq", Status: api.Operational}}
	for _, now := range []time.Time{begun.Add(time.Minute), begun.Add(time.Hour)} {
		got := maintenanceWindows(h, docs, now)
		if len(got["mistral"]) != 1 || !got["mistral"][0].Start.Equal(begun) || len(got["groq"]) != 0 {
			t.Errorf("at %v: %+v; want mistral's window from %v, none for groq", now, got, begun)
		}
	}
}
