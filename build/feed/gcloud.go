package feed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// googleCloud reads the Google Cloud status dashboard's incidents.json: one
// array of every recent incident of every Google Cloud product. The filter
// picks the products of the service (Gemini → "Gemini API", "Vertex Gemini API").
type googleCloud struct{}

// gcIncident is the part of one incidents.json entry that is used. Times are
// strings so that one incident with a bad time is skipped, not fatal.
type gcIncident struct {
	ID               string `json:"id"`
	ExternalDesc     string `json:"external_desc"`
	Begin            string `json:"begin"`
	Created          string `json:"created"`
	End              string `json:"end"`
	Modified         string `json:"modified"`
	Severity         string `json:"severity"`
	StatusImpact     string `json:"status_impact"`
	URI              string `json:"uri"`
	AffectedProducts []struct {
		Title string `json:"title"`
		ID    string `json:"id"`
	} `json:"affected_products"`
	MostRecentUpdate struct {
		When string `json:"when"`
	} `json:"most_recent_update"`
}

const gcDashboard = "https://status.cloud.google.com/"

// Read fetches incidents.json and parses it.
func (googleCloud) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseGoogleCloud)
}

// parseGoogleCloud turns an incidents.json document into a Result. The status
// is the worst over the open incidents of the products in scope; every
// incident of those products in the document is listed (the caller keeps
// what is recent). A document that is JSON null is not the list: an error.
func parseGoogleCloud(data []byte, req Request) (Result, error) {
	svc := req.Service
	var doc []gcIncident
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, err
	}
	if doc == nil && bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return Result{}, failure(api.FailureSchema, "null: not a Google Cloud incidents list")
	}
	products := func(in gcIncident) []ref {
		refs := make([]ref, len(in.AffectedProducts))
		for i, p := range in.AffectedProducts {
			refs[i] = ref{ID: p.ID, Name: p.Title}
		}
		return refs
	}
	var all []ref
	for _, in := range doc {
		all = append(all, products(in)...)
	}
	s := newScoper(svc.Feed.Scope, all, true, pageScopes(svc)...)
	res := Result{Status: api.Operational}
	seen := map[string]bool{}
	for _, in := range doc {
		if !s.incident(in.ExternalDesc, products(in)) {
			continue
		}
		inc, ok := gcConvert(svc, in)
		if !ok || seen[inc.ID] {
			continue
		}
		seen[inc.ID] = true
		if inc.Open() {
			res.Status = api.Worse(res.Status, gcStatus(in))
		}
		res.Incidents = append(res.Incidents, inc)
	}
	api.SortIncidents(res.Incidents)
	return res, nil
}

// gcStatus is what an open incident says about the service: its declared
// impact, else its severity; an open incident is at least degraded.
func gcStatus(in gcIncident) api.Status {
	switch in.StatusImpact {
	case "SERVICE_OUTAGE":
		return api.MajorOutage
	case "SERVICE_DISRUPTION":
		return api.PartialOutage
	case "SERVICE_INFORMATION":
		return api.Degraded
	}
	switch in.Severity {
	case "high":
		return api.MajorOutage
	case "medium":
		return api.PartialOutage
	}
	return api.Degraded
}

// gcConvert maps one incident; false for one without an id or with a time
// that is missing (begin and created) or unreadable.
func gcConvert(svc catalog.Service, in gcIncident) (api.Incident, bool) {
	id := api.OfficialIncidentID(svc.Slug, in.ID)
	if id == "" {
		return api.Incident{}, false
	}
	started, ok := parseTime(cmp.Or(in.Begin, in.Created))
	if !ok || started.IsZero() {
		return api.Incident{}, false
	}
	updated, ok := parseTime(cmp.Or(in.Modified, in.MostRecentUpdate.When))
	if !ok {
		return api.Incident{}, false
	}
	if updated.IsZero() {
		updated = started
	}
	ended, ok := parseTime(in.End)
	if !ok {
		return api.Incident{}, false
	}
	inc := api.Incident{
		ID:        id,
		Service:   svc.Slug,
		Headline:  strings.TrimSpace(in.ExternalDesc),
		Severity:  gcSeverity(in.Severity),
		StartedAt: started,
		Status:    "ongoing",
		Source:    api.SourceOfficial,
		URL:       gcURL(in),
		UpdatedAt: updated,
	}
	if inc.Headline == "" {
		var names []string
		for _, p := range in.AffectedProducts {
			names = append(names, p.Title)
		}
		inc.Headline = "Google Cloud incident: " + strings.Join(names, ", ")
	}
	if !ended.IsZero() {
		inc.EndedAt = &ended
		inc.Status = "resolved"
	}
	return inc, true
}

func gcSeverity(s string) api.Severity {
	switch s {
	case "medium":
		return api.Major
	case "high":
		return api.Critical
	}
	return api.Minor
}

// gcURL makes the incident's relative uri absolute on the dashboard.
func gcURL(in gcIncident) string {
	uri := strings.TrimSpace(in.URI)
	switch {
	case strings.HasPrefix(uri, "https://") || strings.HasPrefix(uri, "http://"):
		return uri
	case uri == "":
		return gcDashboard + "incidents/" + in.ID
	}
	return gcDashboard + strings.TrimPrefix(uri, "/")
}

var _ Adapter = googleCloud{}
