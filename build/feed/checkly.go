package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// checkly reads a Checkly status page's public list of unresolved incidents.
// The page publishes no overall status: it is derived from the incidents.
type checkly struct{}

// checklyDoc is the usual shape of the document; a bare array of incidents
// is read too. Incidents is a pointer so that a document without the list
// (nothing declared) is told from an empty list (nothing wrong).
type checklyDoc struct {
	Incidents *[]checklyIncident `json:"incidents"`
}

// checklyIncident keeps times as strings so that one incident with a bad
// time is skipped instead of failing the whole document.
type checklyIncident struct {
	ID               string `json:"id"`
	Name             string `json:"name"`
	Severity         string `json:"severity"`
	CreatedAt        string `json:"created_at"`
	LastUpdateStatus string `json:"lastUpdateStatus"`
	Services         []struct {
		Name string `json:"name"`
	} `json:"services"`
	IncidentUpdates []struct {
		Status    string `json:"status"`
		CreatedAt string `json:"created_at"`
	} `json:"incidentUpdates"`
}

// Read fetches the unresolved incidents and parses them.
func (checkly) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseCheckly)
}

// parseCheckly turns an unresolved-incidents document into a Result. The
// status is the worst over the incidents that are not resolved, operational
// when there are none; a document without the list (null, {}) is not the
// document we know, and its emptiness proves nothing: an error.
func parseCheckly(data []byte, req Request) (Result, error) {
	svc := req.Service
	var list *[]checklyIncident
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var l []checklyIncident
		if err := json.Unmarshal(t, &l); err != nil {
			return Result{}, fmt.Errorf("decoding Checkly incidents: %w", err)
		}
		list = &l
	} else {
		var doc checklyDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			return Result{}, fmt.Errorf("decoding Checkly incidents: %w", err)
		}
		list = doc.Incidents
	}
	if list == nil {
		return Result{}, failure(api.FailureSchema, "no incidents list: not a Checkly unresolved-incidents document")
	}
	listed := func(in checklyIncident) []ref {
		refs := make([]ref, len(in.Services))
		for i, s := range in.Services {
			refs[i] = ref{Name: s.Name}
		}
		return refs
	}
	s := newScoper(svc.Feed.Scope, nil, false, pageScopes(svc)...)
	st := api.Operational
	var out []api.Incident
	for _, in := range *list {
		if !s.incident(in.Name, listed(in)) {
			continue
		}
		sev := strings.ToUpper(strings.TrimSpace(in.Severity))
		resolved := strings.EqualFold(in.LastUpdateStatus, "RESOLVED")
		if !resolved {
			st = api.Worse(st, checklyStatus(sev))
		}
		if sev == "MAINTENANCE" {
			continue // not an incident
		}
		if inc, ok := checklyConvert(svc, in, sev, resolved); ok {
			out = append(out, inc)
		}
	}
	api.SortIncidents(out)
	return Result{Status: st, Incidents: out}, nil
}

// checklyStatus maps an open incident's upper-cased severity. An open
// incident of a severity not known here still means something is wrong, so
// it counts as degraded.
func checklyStatus(sev string) api.Status {
	switch sev {
	case "MEDIUM":
		return api.PartialOutage
	case "MAJOR", "CRITICAL":
		return api.MajorOutage
	case "MAINTENANCE":
		return api.Maintenance
	}
	return api.Degraded
}

// checklyConvert maps one incident, reporting false for one without an id or
// with a creation time that is missing or unreadable.
func checklyConvert(svc catalog.Service, in checklyIncident, sev string, resolved bool) (api.Incident, bool) {
	id := api.OfficialIncidentID(svc.Slug, in.ID)
	if id == "" {
		return api.Incident{}, false
	}
	started, ok := parseTime(in.CreatedAt)
	if !ok || started.IsZero() {
		return api.Incident{}, false
	}
	// The latest update gives updatedAt (and the end of a resolved
	// incident); an update with an unreadable time is ignored.
	updated, lastStatus := started, ""
	var newest time.Time
	for _, u := range in.IncidentUpdates {
		t, ok := parseTime(u.CreatedAt)
		if !ok || t.IsZero() || t.Before(newest) {
			continue
		}
		newest, lastStatus = t, u.Status
		if t.After(updated) {
			updated = t
		}
	}
	var ended *time.Time
	if resolved {
		ended = &updated
	}
	severity := api.Minor
	switch sev {
	case "MEDIUM":
		severity = api.Major
	case "MAJOR", "CRITICAL":
		severity = api.Critical
	}
	status := in.LastUpdateStatus
	if status == "" {
		status = lastStatus
	}
	return api.Incident{
		ID:        id,
		Service:   svc.Slug,
		Headline:  in.Name,
		Severity:  severity,
		StartedAt: started,
		EndedAt:   ended,
		Status:    strings.ToLower(status),
		Source:    api.SourceOfficial,
		URL:       svc.StatusPage,
		UpdatedAt: updated,
	}, true
}
