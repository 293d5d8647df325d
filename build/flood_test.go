package build_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/bench/synth"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// TestFloodKeepsOtherServicesHistory: one feed lists 20 000 fresh
// incidents every cycle (each cycle's resolved ones, so every one of them
// is new and makes two changes). Before the per-feed cap and the per-service
// pruning, the global caps erased every other service's change log after 2
// builds and all their incidents after 5. Here the other services start
// with about 95 000 incidents and 45 000 changes, near the caps, and after 12
// flooded cycles — enough for the flood to reach both caps — every one of
// their incidents and changes is still there, and the flood grew by at most
// MaxNewIncidentsPerFeed a cycle, saying so once a cycle.
func TestFloodKeepsOtherServicesHistory(t *testing.T) {
	t.Parallel()
	if !buildtest.Long {
		t.Skip("a dozen cycles over 100 000 incidents: a soak run, with -tags long")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var flood catalog.Service
	for _, svc := range cat.Services {
		if svc.Feed.Format != catalog.FormatNone {
			flood = svc
			break
		}
	}
	c := synth.New(cat, time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), 2, 99_000)
	c.AddChanges(cat, 45_000)
	// The flood service starts with nothing of its own, so that what it
	// gains is only the flood.
	kept := c.History.Incidents[:0]
	for _, inc := range c.History.Incidents {
		if inc.Service != flood.Slug {
			kept = append(kept, inc)
		}
	}
	c.History.Incidents = kept
	incidentsBefore, changesBefore := othersHistory(c.History, flood.Slug)

	var logs bytes.Buffer
	log := zerolog.New(&logs)
	now := c.Now
	const cycles, listed = 12, 20_000
	maxFlood := 0
	for cycle := range cycles {
		now = now.Add(5 * time.Minute)
		o := c.Observations[flood.Slug]
		o.Feed.State, o.Feed.Status = api.FeedOK, api.Operational
		o.Incidents = floodIncidents(flood, now, cycle, listed)
		c.Observations[flood.Slug] = o
		build.Assemble(c.History, cat, c.Observations, now, log)

		floodTotal, added := 0, 0
		for _, inc := range c.History.Incidents {
			if inc.Service == flood.Slug {
				floodTotal++
			}
			if strings.HasPrefix(inc.ID, fmt.Sprintf("%s-flood-%d-", flood.Slug, cycle)) {
				added++
			}
		}
		// This cycle's are the flood's newest: pruning takes its oldest.
		if added != history.MaxNewIncidentsPerFeed {
			t.Errorf("cycle %d: the flood added %d incidents, want %d", cycle, added, history.MaxNewIncidentsPerFeed)
		}
		maxFlood = max(maxFlood, floodTotal)
	}
	if got := len(c.History.Incidents); got > history.MaxIncidents+4 { // the synthetic cycle's 4 open ones may exceed it
		t.Errorf("%d incidents retained, over the cap of %d", got, history.MaxIncidents)
	}
	if got := len(c.History.Changes); got > history.MaxChanges {
		t.Errorf("%d changes retained, over the cap of %d", got, history.MaxChanges)
	}
	if maxFlood+len(incidentsBefore) < history.MaxIncidents {
		t.Fatalf("the flood (%d) never reached the incident cap: the test proves nothing", maxFlood)
	}

	incidentsAfter, changesAfter := othersHistory(c.History, flood.Slug)
	for id := range incidentsBefore {
		if !incidentsAfter[id] {
			t.Fatalf("incident %s of another service was pushed out (%d of %d left)", id, len(incidentsAfter), len(incidentsBefore))
		}
	}
	for id := range changesBefore {
		if !changesAfter[id] {
			t.Fatalf("change %d of another service was pushed out (%d of %d left)", id, len(changesAfter), len(changesBefore))
		}
	}
	if got := strings.Count(logs.String(), "more new incidents than one cycle adds"); got != cycles {
		t.Errorf("the cap was logged %d times in %d cycles, want once a cycle", got, cycles)
	}
}

// othersHistory is the ids of the incidents and changes of every service
// but flood.
func othersHistory(h *history.History, flood string) (map[string]bool, map[int64]bool) {
	incidents, changes := map[string]bool{}, map[int64]bool{}
	for _, inc := range h.Incidents {
		if inc.Service != flood {
			incidents[inc.ID] = true
		}
	}
	for _, ch := range h.Changes {
		if ch.Service != flood {
			changes[ch.ID] = true
		}
	}
	return incidents, changes
}

// floodIncidents is n resolved incidents never listed before.
func floodIncidents(svc catalog.Service, now time.Time, cycle, n int) []api.Incident {
	list := make([]api.Incident, n)
	for i := range list {
		start := now.Add(-time.Hour - time.Duration(i)*time.Second)
		end := start.Add(time.Minute)
		list[i] = api.Incident{
			ID: fmt.Sprintf("%s-flood-%d-%d", svc.Slug, cycle, i), Service: svc.Slug, Headline: "Flood",
			Severity: api.Minor, StartedAt: start, EndedAt: &end, Status: "resolved",
			Source: api.SourceOfficial, URL: svc.StatusPage, UpdatedAt: end,
		}
	}
	return list
}
