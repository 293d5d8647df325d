package history

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

func TestFairShares(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		counts map[string]int
		budget int
		want   map[string]int
	}{
		{"fits", map[string]int{"a": 3, "b": 4}, 7, nil},
		{"one floods", map[string]int{"a": 1000, "b": 10, "c": 20}, 100, map[string]int{"a": 70, "b": 10, "c": 20}},
		{"two flood, remainder in slug order", map[string]int{"a": 50, "b": 50, "c": 5}, 40, map[string]int{"a": 18, "b": 17, "c": 5}},
		{"all over the share", map[string]int{"a": 9, "b": 9, "c": 9}, 6, map[string]int{"a": 2, "b": 2, "c": 2}},
		{"budget zero", map[string]int{"a": 1, "b": 2}, 0, map[string]int{"a": 0, "b": 0}},
		{"budget negative (open incidents over the cap)", map[string]int{"a": 1}, -5, map[string]int{"a": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fairShares(tt.counts, tt.budget)
			if !maps.Equal(got, tt.want) {
				t.Errorf("fairShares(%v, %d) = %v, want %v", tt.counts, tt.budget, got, tt.want)
			}
		})
	}
}

// TestPruneIncidentsPerService: past the cap, the flooding service loses
// its oldest ended incidents and the others keep all of theirs, though
// theirs are older; open incidents stay.
func TestPruneIncidentsPerService(t *testing.T) {
	t.Parallel()
	now := at(100 * day)
	var list []api.Incident
	add := func(svc string, n int, age time.Duration, open bool) {
		for i := range n {
			start := now.Add(-age - time.Duration(i)*time.Minute)
			inc := api.Incident{ID: fmt.Sprintf("%s-%d", svc, i), Service: svc, StartedAt: start, Source: api.SourceOfficial, Status: "resolved"}
			if !open {
				inc.EndedAt = ptr(start.Add(time.Minute))
			}
			list = append(list, inc)
		}
	}
	add("flood", 500, time.Hour, false) // the newest of all
	add("quiet", 30, 10*day, false)
	add("other", 20, 20*day, false)
	add("flood", 5, 30*day, true) // open, oldest: never dropped
	api.SortIncidents(list)

	got := pruneIncidents(list, now, 105)
	count := map[string]int{}
	for _, inc := range got {
		count[inc.Service]++
	}
	if count["quiet"] != 30 || count["other"] != 20 {
		t.Errorf("kept %v: the quiet services lost incidents to the flood", count)
	}
	if count["flood"] != 5+50 {
		t.Errorf("flood kept %d, want its 5 open and the newest 50 ended", count["flood"])
	}
	for i := 1; i < len(got); i++ {
		if got[i].StartedAt.After(got[i-1].StartedAt) {
			t.Fatalf("order broken at %d", i)
		}
	}
	for _, inc := range got {
		if inc.Service == "flood" && !inc.Open() && now.Sub(inc.StartedAt) > time.Hour+50*time.Minute {
			t.Errorf("flood kept an older incident %s over a newer one", inc.ID)
		}
	}
}

// TestPruneChangesPerService: a flood of changes from one service, newer
// than everyone else's, leaves the others' entries whole.
func TestPruneChangesPerService(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := New()
	for i := range 40 {
		h.AddChange(api.Change{Type: api.ChangeStatus, Service: []string{"a", "b"}[i%2], Time: now.Add(-48*time.Hour + time.Duration(i)*time.Minute), NewStatus: api.Operational})
	}
	for i := range 1000 {
		h.AddChange(api.Change{Type: api.ChangeStatus, Service: "flood", Time: now.Add(-time.Hour + time.Duration(i)*time.Second), NewStatus: api.Degraded})
	}
	h.pruneChanges(now, 100)
	count := map[string]int{}
	for i, c := range h.Changes {
		count[c.Service]++
		if i > 0 && c.ID <= h.Changes[i-1].ID {
			t.Fatalf("log out of order at %d", i)
		}
	}
	if count["a"] != 20 || count["b"] != 20 || count["flood"] != 60 {
		t.Errorf("kept %v, want a and b whole and the flood's newest 60", count)
	}
	// The log is complete after the newest dropped entry: the flood's 940th.
	if want := now.Add(-time.Hour + 939*time.Second); !h.ChangesSince.Equal(want) {
		t.Errorf("changesSince %s, want %s", h.ChangesSince, want)
	}
}
