package site

import (
	"maps"
	"slices"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// Surfaces on the pages: a service's surfaces other than its API (claude.ai,
// Claude Code, the console), each with its status, a badge of its own and
// its incidents, which the service's page and Atom feeds list beside the
// API's.

// surfaceKind is the BadgeFile kind of a surface's status badge
// (badges/anthropic-app.svg); the API's is the service's own status badge.
func surfaceKind(id catalog.SurfaceID) string { return "-" + string(id) }

// surfaceView is a surface as the pages show it.
type surfaceView struct {
	api.SurfaceDoc
	State StatusInfo
	// Open are its open incidents.
	Open []api.Incident
}

// Month is the surface's 30-day uptime as people are shown it ("not
// enough data" while its history is short).
func (sf surfaceView) Month() string {
	return history.UptimeText(sf.Uptime.D30, sf.UptimeCoverage.D30)
}

// subjects are every surface of the service, the API first. The API is the
// service itself: its in-scope components and incidents, which the
// service document also gives as its first surface. Each one's status and
// basis are the situation's.
func (svc *service) subjects() []api.SurfaceDoc {
	var components []api.SurfaceComponent
	for _, c := range svc.Components {
		if c.InScope {
			components = append(components, api.SurfaceComponent{ID: c.ID, Name: c.Name, Group: c.Group, Status: c.Status})
		}
	}
	out := []api.SurfaceDoc{{
		ID: catalog.SurfaceAPI, Name: catalog.Service{Name: svc.Name}.APISurfaceName(),
		Status: svc.said.status(svc.Slug), Basis: svc.said.basis(svc.Slug),
		Components: components, Incidents: svc.Incidents, Uptime: svc.Uptime, UptimeCoverage: svc.UptimeCoverage,
		DataSince: svc.DataSince, CheckedAt: svc.LastChecked,
	}}
	for _, sf := range svc.Surfaces {
		if sf.ID != catalog.SurfaceAPI {
			out = append(out, svc.situated(sf))
		}
	}
	return out
}

// situated is sf with the situation's status and basis.
func (svc *service) situated(sf api.SurfaceDoc) api.SurfaceDoc {
	id := api.SubjectID(svc.Slug, sf.ID)
	sf.Status, sf.Basis = svc.said.status(id), svc.said.basis(id)
	return sf
}

// others are the service's surfaces other than the API, for the pages.
func (svc *service) others() []surfaceView {
	var out []surfaceView
	for _, sf := range svc.Surfaces {
		if sf.ID == catalog.SurfaceAPI {
			continue
		}
		sf = svc.situated(sf)
		v := surfaceView{SurfaceDoc: sf, State: Status(sf.Status)}
		for _, inc := range sf.Incidents {
			if inc.Open() {
				v.Open = append(v.Open, inc)
			}
		}
		out = append(out, v)
	}
	return out
}

// OtherSurfaces are the service's surfaces other than the API (templates).
func (svc *service) OtherSurfaces() []surfaceView { return svc.others() }

// TroubledSurfaces are the surfaces other than the API with issues
// (degraded or worse), for "what is wrong now" (templates).
func (svc *service) TroubledSurfaces() []surfaceView {
	var out []surfaceView
	for _, sf := range svc.others() {
		if sf.State.Issue {
			out = append(out, sf)
		}
	}
	return out
}

// WorstSurface is the surface other than the API in the worst trouble, when
// it is worse than the API ("API up · claude.ai major outage"), or nil: a card that
// showed the API's status alone would say Operational through a claude.ai
// outage (templates).
func (svc *service) WorstSurface() *surfaceView {
	var worst *surfaceView
	for _, sf := range svc.TroubledSurfaces() {
		if api.Worse(svc.State.Key, sf.Status) != sf.Status || sf.Status == svc.State.Key {
			continue // no worse than the API
		}
		if worst == nil || (api.Worse(worst.Status, sf.Status) == sf.Status && sf.Status != worst.Status) {
			worst = &sf
		}
	}
	return worst
}

func surfaceBadge(svc *service, sf surfaceView) badge {
	return badge{Label: svc.Name + " " + sf.Name, Message: sf.State.Word, Color: sf.State.BadgeColor, Hex: sf.State.BadgeHex}
}

// surfaceIncidents are the incidents of the service's surfaces other than
// the API that the API's own list (incidents) does not have, and for every
// incident that belongs to a surface other than the API, all the surfaces
// it belongs to, the API first when it is the API's too: an Atom entry
// says which.
func surfaceIncidents(svc *service, incidents []api.Incident) (extra []api.Incident, on map[string][]surfaceView) {
	others := svc.others()
	if len(others) == 0 {
		return nil, nil // most services: their API is all they have
	}
	on = map[string][]surfaceView{}
	onAPI := map[string]bool{}
	for _, inc := range incidents {
		if inc.Service == svc.Slug {
			onAPI[inc.ID] = true
		}
	}
	seen := maps.Clone(onAPI)
	for _, sf := range others {
		for _, inc := range sf.Incidents {
			if len(on[inc.ID]) == 0 && onAPI[inc.ID] {
				on[inc.ID] = []surfaceView{{SurfaceDoc: api.SurfaceDoc{ID: catalog.SurfaceAPI, Name: "API"}}}
			}
			on[inc.ID] = append(on[inc.ID], sf)
			if !seen[inc.ID] {
				seen[inc.ID] = true
				extra = append(extra, inc)
			}
		}
	}
	return extra, on
}

// withSurfaceIncidents is the newest limit of incidents (newest first) and
// every service's surface incidents they do not have, with the surfaces of
// each. The newest limit of the union are among incidents' first limit and
// the extras, so only those are sorted.
func (m *model) withSurfaceIncidents(services []*service, incidents []api.Incident, limit int) ([]api.Incident, map[string][]surfaceView) {
	newest := incidents[:min(len(incidents), limit)]
	var extras []api.Incident
	on := map[string][]surfaceView{}
	for _, svc := range services {
		extra, of := surfaceIncidents(svc, incidents)
		extras = append(extras, extra...)
		for id, sfs := range of {
			on[id] = append(on[id], sfs...)
		}
	}
	if len(extras) == 0 {
		return newest, on
	}
	all := slices.Concat(newest, extras)
	api.SortIncidents(all)
	return all[:min(len(all), limit)], on
}

// affectedSurfaces are the services with a surface other than the API in
// trouble, in catalog order: the index names those surfaces beside the
// services whose API is affected.
func (m *model) affectedSurfaces() []*service {
	var out []*service
	for _, svc := range m.services {
		if len(svc.TroubledSurfaces()) > 0 {
			out = append(out, svc)
		}
	}
	return out
}
