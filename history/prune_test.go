package history

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// pruneLoad is the shape that made pruning quadratic: 90 000 ended
// incidents, all within KeepIncidents, and 40 000 open ones that started
// before them (so they sit at the end of the newest-first list), 30 000 over
// MaxIncidents.
func pruneLoad(now time.Time) []api.Incident {
	const ended, open = 90_000, 40_000
	list := make([]api.Incident, 0, ended+open)
	for i := range ended {
		start := now.Add(-time.Duration(i+1) * time.Minute)
		list = append(list, incident(fmt.Sprintf("ended-%06d", i), start, ptr(start.Add(time.Minute))))
	}
	for i := range open {
		start := now.Add(-time.Duration(ended+i+1) * time.Minute)
		list = append(list, incident(fmt.Sprintf("open-%06d", i), start, nil))
	}
	return list
}

func BenchmarkPrune(b *testing.B) {
	now := at(100 * day)
	load := pruneLoad(now)
	h := New()
	for b.Loop() {
		h.Incidents = append(h.Incidents[:0], load...)
		h.Prune(now)
	}
}

// naivePrune is the former rule, one removal at a time: the reference the
// one-pass pruneIncidents must agree with.
func naivePrune(list []api.Incident, now time.Time, limit int) []api.Incident {
	var kept []api.Incident
	for _, inc := range list {
		if inc.Open() || now.Sub(*inc.EndedAt) <= KeepIncidents {
			kept = append(kept, inc)
		}
	}
	for i := len(kept) - 1; len(kept) > limit && i >= 0; i-- {
		if !kept[i].Open() {
			kept = append(kept[:i], kept[i+1:]...)
		}
	}
	return kept
}

func TestPruneIncidentsMatchesReference(t *testing.T) {
	t.Parallel()
	now := at(200 * day)
	rng := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name  string
		n     int
		limit int
		open  float64 // share of open incidents
	}{
		{"empty", 0, 5, 0},
		{"under the cap", 8, 10, 0.3},
		{"at the cap", 10, 10, 0.3},
		{"over the cap, few open", 60, 20, 0.1},
		{"over the cap, mostly open", 60, 20, 0.8},
		{"all open, over the cap", 30, 10, 1},
		{"none open, over the cap", 30, 10, 0},
		{"cap zero", 25, 0, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for round := range 50 {
				list := make([]api.Incident, tt.n)
				for i := range list {
					start := now.Add(-time.Duration(rng.IntN(200*24)) * time.Hour)
					var end *time.Time
					if rng.Float64() >= tt.open {
						end = ptr(start.Add(time.Duration(rng.IntN(100*24)) * time.Hour))
					}
					list[i] = incident(fmt.Sprintf("inc-%03d", i), start, end)
				}
				api.SortIncidents(list)
				want := ids(naivePrune(slices.Clone(list), now, tt.limit))
				got := ids(pruneIncidents(list, now, tt.limit))
				if !slices.Equal(got, want) {
					t.Fatalf("round %d: kept %v, want %v", round, got, want)
				}
			}
		})
	}
}

// TestPruneLargeInput checks the rule on the load that used to take a
// minute: every open incident stays, the cap drops exactly the oldest ended
// ones, and the order is kept.
func TestPruneLargeInput(t *testing.T) {
	t.Parallel()
	now := at(100 * day)
	h := New()
	h.Incidents = pruneLoad(now)
	// Two ended long ago, which expire whatever the cap.
	h.Incidents = append(h.Incidents,
		incident("expired-1", now.Add(-200*day), ptr(now.Add(-91*day))),
		incident("expired-2", now.Add(-201*day), ptr(now.Add(-150*day))))
	h.Prune(now)

	if len(h.Incidents) != MaxIncidents {
		t.Fatalf("kept %d incidents, want %d", len(h.Incidents), MaxIncidents)
	}
	open, ended := 0, 0
	for _, inc := range h.Incidents {
		if inc.Open() {
			open++
		} else {
			ended++
		}
		if strings.HasPrefix(inc.ID, "expired-") {
			t.Errorf("%s ended more than KeepIncidents ago and was kept", inc.ID)
		}
	}
	// 90 000 ended + 40 000 open, capped at 100 000: the 30 000 oldest ended go.
	if open != 40_000 || ended != MaxIncidents-40_000 {
		t.Errorf("kept %d open and %d ended, want 40000 and %d", open, ended, MaxIncidents-40_000)
	}
	for i, inc := range h.Incidents[:ended] {
		if want := fmt.Sprintf("ended-%06d", i); inc.ID != want {
			t.Fatalf("incident %d is %s, want %s (the newest ended are kept, in order)", i, inc.ID, want)
		}
	}
	if !slices.IsSortedFunc(h.Incidents, func(a, b api.Incident) int { return b.StartedAt.Compare(a.StartedAt) }) {
		t.Error("Prune broke the newest-first order")
	}
}
