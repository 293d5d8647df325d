package feed

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// datadog reads a Datadog Status Page's config.json (OpenRouter's,
// status.openrouter.ai): one static document holding the components, nested
// in groups, and the incidents with their timelines. The page itself is a
// client-rendered shell with nothing in it for a plain client.
type datadog struct{}

// ddDoc is the part of config.json that is used. Components is a pointer so
// that a document without the member is told from an empty page.
type ddDoc struct {
	Components *[]ddComponent `json:"components"`
	Incidents  []ddIncident   `json:"incidents"`
}

// ddComponent is a component, or a group ("ComponentGroup") of components.
type ddComponent struct {
	Type       string        `json:"type"`
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	Status     string        `json:"status"`
	Components []ddComponent `json:"components"`
}

// ddIncident keeps times as strings so that one incident with a bad time is
// skipped instead of failing the whole document. The severity is in the
// timeline: the incident-level component status is the component's current
// one (operational once resolved).
type ddIncident struct {
	ID            string `json:"id"`
	Title         string `json:"title"`
	PublishedDate string `json:"publishedDate"`
	Resolved      bool   `json:"resolved"`
	ResolvedDate  string `json:"resolvedDate"`
	// LastModifiedAt is when the page last changed the incident (the real
	// page stamps every edit, a backfill included).
	LastModifiedAt string `json:"lastModifiedAt"`
	// ComponentsAffected are the components with their status now; they
	// scope an incident whose timeline names none.
	ComponentsAffected []struct {
		ID string `json:"id"`
	} `json:"componentsAffected"`
	Timeline []struct {
		StartedAt          string `json:"startedAt"`
		ComponentsAffected []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"componentsAffected"`
	} `json:"timeline"`
}

// Read fetches config.json and parses it.
func (datadog) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseDatadog)
}

// parseDatadog turns config.json into a Result: the leaf components (with
// their group's name) are the page's components, the status is the rollup
// of those in scope, and an incident is in scope by the components its
// timeline affected.
func parseDatadog(data []byte, req Request) (Result, error) {
	svc := req.Service
	var doc ddDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, fmt.Errorf("decoding Datadog status page config: %w", err)
	}
	if doc.Components == nil {
		return Result{}, failure(api.FailureSchema, "no components: not a Datadog status page config")
	}
	var comps []api.Component
	var refs []ref
	byID := map[string]ref{}
	var walk func(list []ddComponent, group ddComponent)
	walk = func(list []ddComponent, group ddComponent) {
		for _, c := range list {
			if c.Type == "ComponentGroup" || len(c.Components) > 0 {
				walk(c.Components, c)
				continue
			}
			r := ref{ID: c.ID, Name: c.Name, GroupID: group.ID, Group: group.Name}
			comps = append(comps, api.Component{ID: c.ID, Name: c.Name, Group: group.Name, Status: ddStatus(c.Status)})
			refs = append(refs, r)
			byID[c.ID] = r
		}
	}
	walk(*doc.Components, ddComponent{})
	s := newScoper(svc.Feed.Scope, refs, true, pageScopes(svc)...)
	status, err := scopeComponents(svc, s, comps, refs)
	if err != nil {
		return Result{}, err
	}
	var out []api.Incident
	for _, in := range doc.Incidents {
		if inc, ok := ddConvert(svc, s, in, byID); ok {
			out = append(out, inc)
		}
	}
	api.SortIncidents(out)
	return Result{Status: status, Components: comps, Incidents: out}, nil
}

// ddStatus maps a component status; anything else is Unknown.
func ddStatus(s string) api.Status {
	switch s {
	case "operational":
		return api.Operational
	case "degraded", "degraded_performance":
		return api.Degraded
	case "partial_outage":
		return api.PartialOutage
	case "major_outage":
		return api.MajorOutage
	case "maintenance", "under_maintenance":
		return api.Maintenance
	}
	return api.Unknown
}

// ddConvert maps one incident. It reports false for one outside the scope,
// or without an id or a readable start. The start is the earliest timeline
// entry (the incident may be published after it began), the severity the
// worst status its timeline gave a component.
func ddConvert(svc catalog.Service, s scoper, in ddIncident, byID map[string]ref) (api.Incident, bool) {
	id := api.OfficialIncidentID(svc.Slug, in.ID)
	if id == "" {
		return api.Incident{}, false
	}
	var listed []ref
	worst := api.Operational
	published, ok := parseTime(in.PublishedDate)
	if !ok {
		return api.Incident{}, false
	}
	started := published
	for _, step := range in.Timeline {
		if t, ok := parseTime(step.StartedAt); ok && !t.IsZero() && (started.IsZero() || t.Before(started)) {
			started = t
		}
		for _, c := range step.ComponentsAffected {
			listed = append(listed, cmp.Or(byID[c.ID], ref{ID: c.ID}))
			worst = api.Worse(worst, ddStatus(c.Status))
		}
	}
	for _, c := range in.ComponentsAffected {
		listed = append(listed, cmp.Or(byID[c.ID], ref{ID: c.ID}))
	}
	if started.IsZero() || !s.incident(in.Title, listed) {
		return api.Incident{}, false
	}
	inc := api.Incident{
		ID: id, Service: svc.Slug, Headline: in.Title, Severity: severityOf(worst), StartedAt: started,
		Status: "ongoing", Source: api.SourceOfficial, URL: svc.StatusPage, UpdatedAt: cmp.Or(published, started),
	}
	if modified, ok := parseTime(in.LastModifiedAt); ok && modified.After(inc.UpdatedAt) {
		inc.UpdatedAt = modified
	}
	if in.Resolved {
		ended, ok := parseTime(in.ResolvedDate)
		if !ok || ended.IsZero() {
			ended = inc.UpdatedAt
		}
		inc.EndedAt, inc.Status = &ended, "resolved"
		if ended.After(inc.UpdatedAt) {
			inc.UpdatedAt = ended
		}
	}
	return inc, true
}

var _ Adapter = datadog{}
