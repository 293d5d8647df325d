package serve

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// referenceIncidentsAt is the pass over every incident of a service that
// serviceAt replaced: those that had started, had been reported and had
// not ended at at, newest first.
func referenceIncidentsAt(snap *Snapshot, slug string, at time.Time) []string {
	var ids []string
	for _, inc := range snap.incidents {
		if inc.Service != slug || inc.StartedAt.After(at) || (inc.EndedAt != nil && !inc.EndedAt.After(at)) {
			continue
		}
		if opened, logged := snap.log.openedAt[inc.ID]; logged && opened.After(at) {
			continue
		}
		ids = append(ids, inc.ID)
	}
	return ids
}

// randomIncidentSnapshot is a snapshot of n incidents over 90 days for a
// few services: short and long ones, some still open (some of those very
// old), some learned of after they started.
func randomIncidentSnapshot(rng *rand.Rand, n int) *Snapshot {
	slugs := []string{"openai", "anthropic", "groq"}
	snap := &Snapshot{status: map[string]api.ServiceSummary{}, log: changeLog{openedAt: map[string]time.Time{}}}
	for _, slug := range slugs {
		snap.status[slug] = api.ServiceSummary{Slug: slug, Name: slug, Status: api.Operational}
	}
	for i := range n {
		start := genTime.Add(-time.Duration(rng.Int64N(int64(90 * 24 * time.Hour))))
		inc := api.Incident{ID: fmt.Sprintf("inc-%d", i), Service: slugs[rng.IntN(len(slugs))], StartedAt: start}
		if rng.IntN(10) > 0 {
			d := time.Duration(rng.Int64N(int64(3 * time.Hour)))
			if rng.IntN(20) == 0 {
				d = time.Duration(rng.Int64N(int64(40 * 24 * time.Hour))) // a long one
			}
			end := start.Add(d)
			inc.EndedAt = &end
		}
		if rng.IntN(5) == 0 {
			snap.log.openedAt[inc.ID] = start.Add(time.Duration(rng.Int64N(int64(2 * time.Hour))))
		}
		snap.incidents = append(snap.incidents, inc)
	}
	api.SortIncidents(snap.incidents)
	snap.indexIncidents()
	return snap
}

// TestServiceAtMatchesAPass: the incidents a point-in-time read lists are
// the reference pass's, capped at MaxIncidentsAt with IncidentsTruncated
// set exactly when more were open, at random times over random histories.
func TestServiceAtMatchesAPass(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	listed := 0
	for round := range 20 {
		n := []int{0, 1, 10, 300, 3000}[round%5]
		snap := randomIncidentSnapshot(rng, n)
		for range 100 {
			at := genTime.Add(-time.Duration(rng.Int64N(int64(95 * 24 * time.Hour))))
			for slug := range snap.status {
				want := referenceIncidentsAt(snap, slug, at)
				got := snap.serviceAt(slug, at)
				var ids []string
				for _, inc := range got.Incidents {
					ids = append(ids, inc.ID)
				}
				more := len(want) > api.MaxIncidentsAt
				if more {
					want = want[:api.MaxIncidentsAt]
				}
				if !slices.Equal(ids, want) || got.IncidentsTruncated != more {
					t.Fatalf("%d incidents, %s at %s: got %v (truncated %v), want %v (truncated %v)",
						n, slug, at.Format(time.RFC3339), ids, got.IncidentsTruncated, want, more)
				}
				listed += len(ids)
			}
		}
	}
	if listed == 0 {
		t.Fatal("no incident was ever open: the histories do not test the search")
	}

	// A flood: thousands open at once are listed up to the cap.
	snap := &Snapshot{status: map[string]api.ServiceSummary{"openai": {Slug: "openai"}}}
	for i := range 5000 {
		snap.incidents = append(snap.incidents, api.Incident{ID: fmt.Sprint(i), Service: "openai", StartedAt: genTime.Add(-time.Duration(i) * time.Second)})
	}
	snap.indexIncidents()
	if got := snap.serviceAt("openai", genTime); len(got.Incidents) != api.MaxIncidentsAt || !got.IncidentsTruncated || got.Incidents[0].ID != "0" {
		t.Errorf("flood: %d incidents listed, truncated %v", len(got.Incidents), got.IncidentsTruncated)
	}
}

// TestOrderedLog: a change log out of order (a hostile origin's
// changes.json) is read sorted by id, without repeated ids or times that
// go back; one in order is used as it is.
func TestOrderedLog(t *testing.T) {
	t.Parallel()
	at := func(id int64, minutes int) api.Change {
		return api.Change{ID: id, Time: genTime.Add(time.Duration(minutes) * time.Minute)}
	}
	ids := func(log []api.Change) (out []int64) {
		for _, c := range log {
			out = append(out, c.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		log  []api.Change
		want []int64
	}{
		{"empty", nil, nil},
		{"in order, times tie", []api.Change{at(1, 0), at(2, 0), at(3, 5)}, []int64{1, 2, 3}},
		{"shuffled", []api.Change{at(3, 3), at(1, 1), at(2, 2)}, []int64{1, 2, 3}},
		{"repeated id", []api.Change{at(1, 1), at(2, 2), at(2, 9), at(3, 3)}, []int64{1, 2, 3}},
		{"time goes back", []api.Change{at(1, 5), at(2, 1), at(3, 6)}, []int64{1, 3}},
	} {
		if got := ids(orderedLog(tt.log)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		// As a snapshot reads it from a history.
		history, _ := json.Marshal(map[string]any{"changes": tt.log, "changesSince": genTime})
		name := filepath.Join(t.TempDir(), snapshot.FileHistory)
		if err := os.WriteFile(name, history, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		snap := &Snapshot{files: map[string]*representation{}, history: f}
		if got := ids(snap.changeLog().changes); snap.logErr != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s, loaded: %v (%v), want %v", tt.name, got, snap.logErr, tt.want)
		}
	}
}
