package feed

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// statuspage reads Atlassian Statuspage v2 pages and incident.io's
// Statuspage-compatible API. The two share paths and most fields; format says
// which one is being read, for the one rule that differs: incident.io pages
// may not serve incidents.json at all.
type statuspage struct {
	format catalog.FeedFormat
}

// summaryDoc is the part of /api/v2/summary.json (and components.json) that
// is used. The pointers tell a missing member from an empty one: a document
// must prove it is a status page summary before its calm means anything.
type summaryDoc struct {
	Page   *struct{} `json:"page"`
	Status *struct {
		Indicator string `json:"indicator"`
	} `json:"status"`
	Components *[]spComponent `json:"components"`
	// Incidents are the unresolved incidents.
	Incidents []spIncident `json:"incidents"`
}

// incidentsDoc is the part of /api/v2/incidents.json that is used.
type incidentsDoc struct {
	Incidents *[]spIncident `json:"incidents"`
}

type spComponent struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	GroupID string `json:"group_id"`
	// Group rows only contain other components; their own status is derived
	// from those and would count them twice.
	Group bool `json:"group"`
}

// spIncident keeps times as strings so that one incident with a bad time is
// skipped instead of failing the decoding of the whole document.
type spIncident struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Impact     string `json:"impact"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
	StartedAt  string `json:"started_at"`
	ResolvedAt string `json:"resolved_at"`
	Shortlink  string `json:"shortlink"`
	Components []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		GroupID string `json:"group_id"`
	} `json:"components"`
	// Updates are kept undecoded: only the components each one names are
	// read (spListed), and an update of an unexpected shape is skipped
	// instead of failing the whole document.
	Updates json.RawMessage `json:"incident_updates"`
}

// spUpdate is the part of an incident update that is used: the components
// whose status it set, by code (the component's id) and name, with the
// status they went from and to. Statuspage sends null on an update that
// set none.
type spUpdate struct {
	AffectedComponents []struct {
		Code string `json:"code"`
		Name string `json:"name"`
	} `json:"affected_components"`
}

// Read fetches the summary, the full component list where the service has
// one (incident.io's summary carries a rotating subset of a large page's
// components), and the incident list.
func (a statuspage) Read(ctx context.Context, req Request) (Result, error) {
	svc := req.Service
	sum, err := spReadSummary(ctx, req.Client, svc.Feed.URL)
	if err != nil {
		return Result{}, err
	}
	comps := *sum.Components
	if svc.Feed.ComponentsURL != "" {
		full, err := spReadSummary(ctx, req.Client, svc.Feed.ComponentsURL)
		if err != nil {
			return Result{}, err
		}
		comps = *full.Components
	}
	var listed []spIncident
	hasList := false
	if svc.Feed.IncidentsURL != "" {
		var doc incidentsDoc
		err := getJSON(ctx, req.Client, svc.Feed.IncidentsURL, &doc)
		var he *httpError
		switch {
		case err == nil && doc.Incidents == nil:
			return Result{}, failure(api.FailureSchema, "GET %s: no incidents list: not a status page's incidents.json", svc.Feed.IncidentsURL)
		case err == nil:
			listed, hasList = *doc.Incidents, true
		case a.format == catalog.FormatIncidentIO && errors.As(err, &he) && he.Code == http.StatusNotFound:
			// Some incident.io pages do not serve this route; the summary's
			// unresolved incidents are then all there is.
		default:
			return Result{}, err
		}
	}
	res, err := statuspageResult(svc, a.format, comps, sum.Incidents, listed)
	if err == nil && hasList {
		res.Timeline = spTimeline(listed)
	}
	return res, err
}

// spListLength is how many incidents incidents.json lists at most: "the 50
// most recent incidents", resolved ones included, in Statuspage's API
// reference.
const spListLength = 50

// spTimeline is how far back an incidents.json list is complete: all the
// page keeps when it is shorter than spListLength, else from its oldest
// incident on. Nil when an incident's times cannot be read: the incident is
// left out (spConvert), and its span would read operational.
func spTimeline(listed []spIncident) *Timeline {
	var oldest time.Time
	for _, in := range listed {
		started, ok := parseTime(cmp.Or(in.StartedAt, in.CreatedAt))
		_, okResolved := parseTime(in.ResolvedAt)
		_, okUpdated := parseTime(in.UpdatedAt)
		if in.ID == "" || !ok || started.IsZero() || !okResolved || !okUpdated {
			return nil
		}
		if oldest.IsZero() || started.Before(oldest) {
			oldest = started
		}
	}
	if len(listed) < spListLength {
		return &Timeline{}
	}
	return &Timeline{Since: oldest}
}

// spReadSummary reads a summary.json or components.json and checks that it is
// one: a page or status member and a list of components.
func spReadSummary(ctx context.Context, client *http.Client, url string) (summaryDoc, error) {
	var sum summaryDoc
	if err := getJSON(ctx, client, url, &sum); err != nil {
		return summaryDoc{}, err
	}
	switch {
	case sum.Components == nil:
		return summaryDoc{}, failure(api.FailureSchema, "GET %s: no components list: not a status page summary", url)
	case len(*sum.Components) == 0:
		return summaryDoc{}, failure(api.FailureEmpty, "GET %s: the page lists no components", url)
	case sum.Page == nil && sum.Status == nil:
		return summaryDoc{}, failure(api.FailureSchema, "GET %s: no page or status: not a status page summary", url)
	}
	return sum, nil
}

// statuspageResult is what a page's components and incidents declare for
// the service's scope. The page-wide indicator is not used: it mixes every
// product on the page, and is set by hand and lags the components.
func statuspageResult(svc catalog.Service, format catalog.FeedFormat, rows []spComponent, unresolved, listed []spIncident) (Result, error) {
	groups := map[string]string{}
	for _, c := range rows {
		if c.Group {
			groups[c.ID] = c.Name
		}
	}
	var comps []api.Component
	var refs []ref
	for _, c := range rows {
		if c.Group {
			continue
		}
		comps = append(comps, api.Component{ID: c.ID, Name: c.Name, Group: groups[c.GroupID], Status: spComponentStatus(c.Status)})
		refs = append(refs, ref{ID: c.ID, Name: c.Name, GroupID: c.GroupID, Group: groups[c.GroupID]})
	}
	s := newScoper(svc.Feed.Scope, refs, format == catalog.FormatStatuspage, pageScopes(svc)...)
	status, err := scopeComponents(svc, s, comps, refs)
	if err != nil {
		return Result{}, err
	}
	onPage := make(map[string]ref, len(refs))
	for _, r := range refs {
		onPage[r.ID] = r
	}
	return Result{Status: status, Components: comps, Incidents: spIncidents(svc, s, onPage, unresolved, listed)}, nil
}

// spComponentStatus maps a component status; an unknown string is Unknown,
// which the rollup leaves out.
func spComponentStatus(status string) api.Status {
	switch status {
	case "operational":
		return api.Operational
	case "degraded_performance":
		return api.Degraded
	case "partial_outage":
		return api.PartialOutage
	case "major_outage", "full_outage": // full_outage is incident.io's name
		return api.MajorOutage
	case "under_maintenance":
		return api.Maintenance
	}
	return api.Unknown
}

// spIncidents merges the summary's unresolved incidents with the incident
// list. The list is read after the summary and is the fuller record, so its
// version of an incident wins. onPage are the page's components by id,
// for the components an incident's updates name.
func spIncidents(svc catalog.Service, s scoper, onPage map[string]ref, unresolved, listed []spIncident) []api.Incident {
	var order []string
	byID := map[string]spIncident{}
	for _, list := range [][]spIncident{unresolved, listed} {
		for _, in := range list {
			if _, seen := byID[in.ID]; !seen {
				order = append(order, in.ID)
			}
			byID[in.ID] = in
		}
	}
	var out []api.Incident
	for _, id := range order {
		if inc, ok := spConvert(svc, s, onPage, byID[id]); ok {
			out = append(out, inc)
		}
	}
	api.SortIncidents(out)
	return out
}

// spConvert maps one upstream incident. It reports false for an incident to
// leave out: maintenance, one outside the scope, or one without an id or
// with a time that cannot be read (better missing than wrong).
func spConvert(svc catalog.Service, s scoper, onPage map[string]ref, in spIncident) (api.Incident, bool) {
	id := api.OfficialIncidentID(svc.Slug, in.ID)
	if id == "" || in.Impact == "maintenance" {
		return api.Incident{}, false
	}
	if !s.incident(in.Name, spListed(in, onPage)) {
		return api.Incident{}, false
	}
	started, ok := parseTime(cmp.Or(in.StartedAt, in.CreatedAt))
	if !ok || started.IsZero() {
		return api.Incident{}, false
	}
	updated, ok := parseTime(in.UpdatedAt)
	if !ok {
		return api.Incident{}, false
	}
	if updated.IsZero() {
		updated = started
	}
	resolved, ok := parseTime(in.ResolvedAt)
	if !ok {
		return api.Incident{}, false
	}
	var ended *time.Time
	switch {
	case !resolved.IsZero():
		ended = &resolved
	case in.Status == "resolved" || in.Status == "postmortem":
		// Some pages close an incident without stamping resolved_at; its
		// last update is then the best estimate of the end.
		ended = &updated
	}
	return api.Incident{
		ID:        id,
		Service:   svc.Slug,
		Headline:  in.Name,
		Severity:  spSeverity(in.Impact),
		StartedAt: started,
		EndedAt:   ended,
		Status:    in.Status,
		Source:    api.SourceOfficial,
		URL:       cmp.Or(in.Shortlink, svc.StatusPage),
		UpdatedAt: updated,
	}, true
}

// spListed is the components an incident is attributed to: those it
// lists, or, when it lists none, every component one of its updates names.
//
// Anthropic unlinks an incident's components when it resolves it: the
// resolved incident lists none, while its updates still name the
// components they set (incident kqbd7wm6hnnr, "Elevated errors for
// multiple models", lists none; five of its six updates name Claude API).
// Read from the list alone, such an incident is judged by its title, and
// one first seen after its resolution (a new deployment, or after
// downtime) is dropped when the title has no keyword.
//
// The updates are read only when the list is empty, not always: a list
// that names components is the page's current word, and when an operator
// took one component off an incident that was a correction, which the
// updates, a record of each step, do not show. An empty list cannot be told
// apart from the unlinking at resolution, and the updates are then the
// page's only word on what the incident touched. incident.io's compatible
// API serves the same shape and never fills the list (the updates of its
// pages we hold name nothing either), so there the updates decide too,
// whenever they name a component.
//
// An update's code is the component's id: a component still on the page is
// taken from the page, with its group (Cloudflare names it "<group> -
// <name>" in its updates); one no longer there keeps the update's code and
// name.
func spListed(in spIncident, onPage map[string]ref) []ref {
	if len(in.Components) > 0 {
		listed := make([]ref, len(in.Components))
		for i, c := range in.Components {
			listed[i] = ref{ID: c.ID, Name: c.Name, GroupID: c.GroupID}
		}
		return listed
	}
	var raw []json.RawMessage
	if json.Unmarshal(in.Updates, &raw) != nil {
		return nil
	}
	var listed []ref
	seen := map[ref]bool{}
	for _, r := range raw {
		var u spUpdate
		if json.Unmarshal(r, &u) != nil {
			continue // an update of another shape names nothing we can read
		}
		for _, c := range u.AffectedComponents {
			c := ref{ID: c.Code, Name: c.Name}
			if page, ok := onPage[c.ID]; ok && c.ID != "" {
				c = page
			}
			if (c.ID != "" || c.Name != "") && !seen[c] {
				seen[c] = true
				listed = append(listed, c)
			}
		}
	}
	return listed
}

// spSeverity maps an incident's impact. "none" still is an official incident,
// so it and any impact not known here count as minor.
func spSeverity(impact string) api.Severity {
	switch impact {
	case "major":
		return api.Major
	case "critical":
		return api.Critical
	}
	return api.Minor
}
