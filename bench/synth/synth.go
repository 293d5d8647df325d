// Package synth makes a synthetic but plausible build cycle — the history
// that weeks of five-minute cycles leave behind, any number of retained
// incidents and one cycle's observations — for the benchmarks and the load
// test. It is deterministic and touches no network, so that runs compare.
package synth

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// Cycle is the input of one build cycle: the history earlier cycles left and
// what this one observed. build.Assemble then build.Render turn it into a
// snapshot.
type Cycle struct {
	History      *history.History
	Observations map[string]build.Observation
	Now          time.Time
}

// every is the cadence of the recorded cycles: the scheduled rebuild's.
const every = 5 * time.Minute

var headlines = []string{
	"Elevated error rates",
	"Increased latency for API requests",
	"Degraded performance of model responses",
	"Partial outage of the completions endpoint",
	"Login issues for some users",
	"Errors when uploading files",
	"Scheduled database maintenance",
	"Requests timing out in one region",
}

// New returns a cycle at now for cat with days of per-service history,
// recorded every five minutes, and incidents retained incidents spread over
// the 85 days before now (inside the 90-day retention). Four services are
// not operational — degraded, partial outage, major outage, maintenance —
// each with an open official incident; every other incident has ended.
func New(cat catalog.Catalog, now time.Time, days, incidents int) Cycle {
	rng := rand.New(rand.NewPCG(1, 2))
	now = now.UTC()
	h := history.New()

	for _, svc := range cat.Services {
		sh := h.Track(svc.Slug)
		status := api.Operational
		for t := now.Add(-time.Duration(days) * 24 * time.Hour); t.Before(now); t = t.Add(every) {
			if t.Minute() < 5 { // a new status each hour, mostly operational
				status = hourStatus(rng)
			}
			sh.Record(t, status, new(80+rng.Float64()*400))
		}
	}

	probeIDs := map[string]bool{}
	for i := range incidents {
		svc := cat.Services[rng.IntN(len(cat.Services))]
		start := now.Add(-5*time.Minute - time.Duration(rng.Int64N(int64(85*24*time.Hour)))).Truncate(time.Second)
		end := start.Add(time.Minute + time.Duration(rng.Int64N(int64(8*time.Hour))))
		if last := now.Add(-time.Minute); end.After(last) {
			end = last
		}
		inc := api.Incident{
			ID:        fmt.Sprintf("%s-syn%07d", svc.Slug, i),
			Service:   svc.Slug,
			Headline:  headlines[rng.IntN(len(headlines))],
			Severity:  severity(rng),
			StartedAt: start,
			EndedAt:   &end,
			Status:    "resolved",
			Source:    api.SourceOfficial,
			URL:       fmt.Sprintf("%s/incidents/syn%07d", svc.StatusPage, i),
			UpdatedAt: end,
		}
		if id := fmt.Sprintf("%s-probe-%d", svc.Slug, start.Unix()); (svc.Feed.Format == catalog.FormatNone || rng.IntN(10) == 0) && !probeIDs[id] {
			probeIDs[id] = true // ids must stay unique, as in a real history
			inc.ID, inc.Source, inc.URL = id, api.SourceProbe, svc.StatusPage
		}
		h.Incidents = append(h.Incidents, inc)
	}

	obs := make(map[string]build.Observation, len(cat.Services))
	troubled := []api.Status{api.Degraded, api.PartialOutage, api.MajorOutage, api.Maintenance}
	for _, svc := range cat.Services {
		var o build.Observation
		if svc.Feed.Format == catalog.FormatNone {
			o.Feed = api.FeedSource{Format: svc.Feed.Format, State: api.FeedNone}
		} else {
			o.Feed = api.FeedSource{Format: svc.Feed.Format, State: api.FeedOK, Status: api.Operational}
			if len(troubled) > 0 {
				o.Feed.Status, troubled = troubled[0], troubled[1:]
				// The feed lists its open incident, so Assemble keeps it open.
				inc := api.Incident{
					ID: svc.Slug + "-live", Service: svc.Slug, Headline: headlines[0], Severity: api.Major,
					StartedAt: now.Add(-40 * time.Minute), Status: "investigating", Source: api.SourceOfficial,
					URL: svc.StatusPage + "/incidents/live", UpdatedAt: now.Add(-10 * time.Minute),
				}
				o.Incidents = []api.Incident{inc}
				h.Incidents = append(h.Incidents, inc)
			}
		}
		if svc.ProbeURL == "" {
			o.Probe = api.ProbeSource{State: api.ProbeNone}
		} else {
			ms := 80 + rng.Float64()*400
			o.Probe = api.ProbeSource{State: api.ProbeOK, LatencyMs: &ms, HTTPStatus: 401}
		}
		obs[svc.Slug] = o
	}
	api.SortIncidents(h.Incidents)
	h.UpdatedAt = now.Add(-every)
	return Cycle{History: h, Observations: obs, Now: now}
}

func hourStatus(rng *rand.Rand) api.Status {
	switch n := rng.IntN(1000); {
	case n < 960:
		return api.Operational
	case n < 980:
		return api.Degraded
	case n < 990:
		return api.PartialOutage
	case n < 995:
		return api.MajorOutage
	default:
		return api.Maintenance
	}
}

func severity(rng *rand.Rand) api.Severity {
	switch n := rng.IntN(10); {
	case n < 6:
		return api.Minor
	case n < 9:
		return api.Major
	default:
		return api.Critical
	}
}

// Snapshot runs the cycle and renders its files: Assemble, then Render, as a
// build does. Assemble records the cycle in c.History, so call it once.
func (c Cycle) Snapshot(site build.Site, cat catalog.Catalog) (map[string][]byte, error) {
	states := build.Assemble(c.History, cat, c.Observations, c.Now, zerolog.Nop())
	return build.Render(site, cat, c.History, states, c.Now)
}

// AddChanges fills the change log with n entries spread evenly over the 85
// days before c.Now, oldest first: status changes and, for every other
// entry, an incident.opened carrying one of the retained incidents (the
// bulk of a real log's bytes), cycling over the services.
func (c Cycle) AddChanges(cat catalog.Catalog, n int) {
	if n <= 0 {
		return
	}
	start := c.Now.Add(-85 * 24 * time.Hour)
	step := 85 * 24 * time.Hour / time.Duration(n)
	statuses := []api.Status{api.Operational, api.Degraded, api.Operational, api.MajorOutage}
	for i := range n {
		ch := api.Change{Time: start.Add(time.Duration(i) * step), Service: cat.Services[i%len(cat.Services)].Slug}
		if i%2 == 1 && len(c.History.Incidents) > 0 {
			inc := c.History.Incidents[i%len(c.History.Incidents)]
			ch.Type, ch.Service, ch.Incident = api.ChangeIncidentOpened, inc.Service, &inc
		} else {
			ch.Type, ch.OldStatus, ch.NewStatus = api.ChangeStatus, statuses[i%4], statuses[(i+1)%4]
		}
		c.History.AddChange(ch)
	}
}

// MajorOutage puts the service slug of cat in a major outage this cycle,
// as Anthropic's page was on 2026-07-29 (build/feed/testdata/real,
// statuspage-anthropic-20260729.json): the API and every surface but the
// console in major outage, one open critical incident across them,
// "Elevated errors across all models", and our probe of the API failed
// with a 500. It replaces the open incident New gave the service, if any.
// Call it before Snapshot.
func (c Cycle) MajorOutage(cat catalog.Catalog, slug string) error {
	svc, ok := cat.Lookup(slug)
	if !ok {
		return fmt.Errorf("synth: no service %q in the catalog", slug)
	}
	if svc.Feed.Format == catalog.FormatNone {
		return fmt.Errorf("synth: %s has no status page to declare an outage", slug)
	}
	inc := api.Incident{
		ID: svc.Slug + "-live", Service: svc.Slug, Headline: "Elevated errors across all models", Severity: api.Critical,
		StartedAt: c.Now.Add(-25 * time.Minute), Status: "investigating", Source: api.SourceOfficial,
		URL: svc.StatusPage + "/incidents/live", UpdatedAt: c.Now.Add(-5 * time.Minute),
	}
	o := c.Observations[slug]
	o.Feed.Status, o.Incidents, o.Surfaces = api.MajorOutage, []api.Incident{inc}, nil
	if svc.ProbeURL != "" {
		o.Probe = api.ProbeSource{State: api.ProbeFailed, HTTPStatus: 500, Error: "HTTP Internal Server Error"}
	}
	for _, sf := range svc.Surfaces {
		r := feed.SurfaceResult{ID: sf.ID, Status: api.MajorOutage, Incidents: []api.Incident{inc}}
		if sf.ID == catalog.SurfaceConsole {
			r = feed.SurfaceResult{ID: sf.ID, Status: api.Operational}
		}
		o.Surfaces = append(o.Surfaces, r)
	}
	c.Observations[slug] = o
	c.History.Incidents = slices.DeleteFunc(c.History.Incidents, func(i api.Incident) bool { return i.ID == inc.ID })
	c.History.Incidents = append(c.History.Incidents, inc)
	api.SortIncidents(c.History.Incidents)
	return nil
}
