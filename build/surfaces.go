package build

import (
	"fmt"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// recordSurfaces records this cycle's status of each surface the page was
// read for, for its uptime: unknown (left out of uptime) when the read
// failed. A surface with no result (the service has no page we read)
// records nothing, and so has no data rather than unknown time.
//
// It merges the incidents the page lists for each surface it was read for
// into the surface's by the service's rule (history.IncidentIndex.Merge);
// when it could not be read, they stay as they were.
//
// A surface's status transition goes in h's change log as the service's
// does (Assemble): a surface.status.changed, without an old status at the
// surface's first check, and a surface.recovered after it when it comes
// back from an outage. So do its own incidents' openings, updates and
// resolutions, naming the surface: one the service's scope lists too
// (servicesIncident, nil for none) is the service's, logged once, as its.
//
// A surface the page could not be read for keeps the page's last word for
// up to history.MaxHold, as the API does (rule 4,
// history.ServiceHistory.DecideStatus), unless offline (rule 1: nothing
// was checked): a page that refuses every other request during a claude.ai
// outage must not flap claude.ai to unknown and back, a status change and
// an alert each cycle.
func recordSurfaces(h *history.History, slug string, sh *history.ServiceHistory, results []feed.SurfaceResult, servicesIncident func(id string) bool, offline bool, now time.Time) {
	for _, r := range results {
		sf := sh.Surface(r.ID)
		status := r.Status
		switch {
		case r.Err != nil || !status.Valid():
			status = api.Unknown
			if held, ok := sf.LastWord(now); !offline && ok {
				status = held
			}
		case status != api.Unknown:
			sf.LastFeedStatus, sf.LastFeedAt = status, now
		}
		if prev := sf.LastStatus; prev != status && (prev == "" || now.After(sf.LastChecked)) {
			h.AddStatusChange(api.Change{Type: api.ChangeSurfaceStatus, Service: slug, Surface: r.ID, Time: now, OldStatus: prev, NewStatus: status})
		}
		sf.Record(now, status, nil)
		if r.Err != nil {
			continue
		}
		before := history.IncidentsByID(sf.Incidents)
		// The page read for the surface speaks for all its incidents.
		sf.IndexIncidents().Merge(r.Incidents, func(api.Incident) bool { return true }, now)
		api.SortIncidents(sf.Incidents)
		own := sf.Incidents
		if servicesIncident != nil {
			own = slices.DeleteFunc(slices.Clone(own), func(inc api.Incident) bool { return servicesIncident(inc.ID) })
		}
		h.LogIncidents(own, before, r.ID, now)
	}
}

// surfaceDocs are a service's surfaces for its detail document: the API
// first, which is the service itself (its status, basis, incidents and
// uptime), then each surface of the catalog as the page declared it this
// cycle.
//
// A surface other than the API rests on the page's word alone: our probe
// tests the API host, which says nothing of claude.ai or Claude Code. When
// the page fails, the surface's last word stands in for history.MaxHold
// as recordSurfaces held it (history.ServiceHistory.HeldWord), and after that, or with no page at
// all, it is unknown, with basis none. Its incidents and its uptime are kept in the
// history (sh.Surfaces), by the service's rules, from its first read; the
// long windows (90 days, a year), which rest on the services' daily
// rollups, are the API's alone. uptime and coverage are the service's.
func surfaceDocs(svc catalog.Service, st ServiceState, sh *history.ServiceHistory, uptime api.Uptime, coverage api.Coverage,
	incidents []api.Incident, now time.Time) []api.SurfaceDoc {
	var apiComponents []api.SurfaceComponent
	for _, c := range st.Components {
		if c.InScope {
			apiComponents = append(apiComponents, api.SurfaceComponent{ID: c.ID, Name: c.Name, Group: c.Group, Status: c.Status})
		}
	}
	checked := timePtr(st.CheckedAt)
	if st.Sources.Feed.State != api.FeedOK {
		checked = nil
	}
	docs := []api.SurfaceDoc{{
		ID: catalog.SurfaceAPI, Name: svc.APISurfaceName(), Status: st.Status, Basis: st.Basis,
		Source:     "The service's status: the official page's components and incidents in the API's scope, with our probe of the API host (basis says which decided).",
		Components: nonNil(apiComponents), Incidents: incidents, CheckedAt: checked,
		Uptime: uptime, UptimeCoverage: coverage, DataSince: timePtr(sh.DataSince()),
	}}
	for _, sf := range svc.Surfaces {
		r := surfaceResult(st.Surfaces, sf.ID)
		hist := sh.LookupSurface(sf.ID)
		d := api.SurfaceDoc{ID: sf.ID, Name: sf.Name, Status: api.Unknown, Basis: api.BasisNone,
			Components: []api.SurfaceComponent{}, Incidents: []api.Incident{},
			Uptime: hist.Uptime(now), UptimeCoverage: hist.Coverage(now), DataSince: timePtr(hist.DataSince())}
		switch {
		case r == nil:
			d.Source = "The official page gave no word on this surface this cycle (" + describeFeed(st.Sources.Feed) + "): nothing to go on."
		case r.Err != nil:
			if held, at, ok := hist.HeldWord(now); ok {
				d.Status, d.Basis = held, api.BasisOfficial
				d.Source = fmt.Sprintf("The official page could not be read for %s this cycle (%s: %v): its last word, read at %s, stands in for up to %d minutes.",
					sf.Name, feed.Kind(r.Err), r.Err, at.UTC().Format(time.RFC3339), int(history.MaxHold.Minutes()))
				break
			}
			d.Source = fmt.Sprintf("The official page could not be read for %s this cycle (%s: %v): nothing to go on.", sf.Name, feed.Kind(r.Err), r.Err)
		default:
			d.Status, d.Basis, d.CheckedAt = r.Status, api.BasisOfficial, timePtr(st.CheckedAt)
			d.Source = fmt.Sprintf("The official page's components and incidents in the scope of %s, as read at %s.",
				sf.Name, st.CheckedAt.UTC().Format(time.RFC3339))
			for _, c := range r.Components {
				d.Components = append(d.Components, api.SurfaceComponent{ID: c.ID, Name: c.Name, Group: c.Group, Status: c.Status})
			}
		}
		d.Incidents = nonNil(slices.Clone(hist.Incidents))
		docs = append(docs, d)
	}
	return docs
}

// surfaceSummaries are the surfaces of status.json, from the detail
// documents' surfaces: each with its open incidents, and a surface other
// than the API with its components, which /check reads when a query names
// one of them.
func surfaceSummaries(docs []api.SurfaceDoc) []api.SurfaceSummary {
	out := make([]api.SurfaceSummary, len(docs))
	for i, d := range docs {
		open := []api.Incident{}
		for _, inc := range d.Incidents {
			if inc.Open() {
				open = append(open, inc)
			}
		}
		out[i] = api.SurfaceSummary{ID: d.ID, Name: d.Name, Status: d.Status, Basis: d.Basis, OpenIncidents: open}
		if d.ID != catalog.SurfaceAPI && len(d.Components) > 0 {
			out[i].Components = d.Components
		}
	}
	return out
}

// surfaceResult is the result for surface id, or nil when there is none.
func surfaceResult(results []feed.SurfaceResult, id catalog.SurfaceID) *feed.SurfaceResult {
	for i := range results {
		if results[i].ID == id {
			return &results[i]
		}
	}
	return nil
}

// describeFeed says why a feed gave no surfaces: its state and error.
func describeFeed(f api.FeedSource) string {
	switch {
	case f.State == "":
		return "no data yet"
	case f.Error != "":
		return "feed " + f.State + ": " + f.Error
	}
	return "feed " + f.State
}

// nonNil is s, or an empty slice for nil: a list is published as [], not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
