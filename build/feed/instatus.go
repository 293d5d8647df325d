package feed

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// instatus reads an Instatus page's public summary.json: the page status and
// its active incidents and maintenances.
type instatus struct{}

// instatusDoc is the part of summary.json that is used.
type instatusDoc struct {
	Page struct {
		Status string `json:"status"`
	} `json:"page"`
	ActiveIncidents    []instatusIncident    `json:"activeIncidents"`
	ActiveMaintenances []instatusMaintenance `json:"activeMaintenances"`
}

// instatusIncident keeps times as strings so that one incident with a bad
// time is skipped instead of failing the whole document.
type instatusIncident struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Started   string `json:"started"`
	Status    string `json:"status"`
	Impact    string `json:"impact"`
	URL       string `json:"url"`
	UpdatedAt string `json:"updatedAt"`
}

type instatusMaintenance struct {
	Status string `json:"status"`
}

// Read fetches summary.json and parses it.
func (instatus) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseInstatus)
}

// parseInstatus turns a summary.json document into a Result. The status is
// the worse of the page status, the impacts of the unresolved incidents and
// an in-progress maintenance. With a scope, the page status (which covers
// every product on the page) is left out, and only incidents in scope count.
func parseInstatus(data []byte, req Request) (Result, error) {
	svc := req.Service
	var doc instatusDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, fmt.Errorf("decoding Instatus summary: %w", err)
	}
	if doc.Page.Status == "" {
		return Result{}, failure(api.FailureSchema, "no page status: not an Instatus summary")
	}
	st := instatusStatus(doc.Page.Status)
	if !svc.Feed.Scope.IsZero() {
		st = api.Operational
	}
	s := newScoper(svc.Feed.Scope, nil, false, pageScopes(svc)...)
	var out []api.Incident
	for _, in := range doc.ActiveIncidents {
		if !s.incident(in.Name, nil) {
			continue
		}
		resolved := strings.EqualFold(in.Status, "RESOLVED")
		if !resolved {
			st = api.Worse(st, instatusStatus(in.Impact))
		}
		if inc, ok := instatusConvert(svc, in, resolved); ok {
			out = append(out, inc)
		}
	}
	for _, m := range doc.ActiveMaintenances {
		if strings.EqualFold(m.Status, "INPROGRESS") {
			st = api.Worse(st, api.Maintenance)
		}
	}
	api.SortIncidents(out)
	return Result{Status: st, Incidents: out}, nil
}

// instatusStatus maps a page status or an incident impact. Instatus names
// several variants of a family (ONEMAJOROUTAGE, MAJOROUTAGE,
// ALLUNDERMAINTENANCE, …), so families are matched by suffix. Anything else
// is Unknown, which any known status beats.
func instatusStatus(s string) api.Status {
	s = strings.ToUpper(strings.TrimSpace(s))
	switch {
	case s == "":
		return api.Unknown
	case s == "UP" || s == "OPERATIONAL":
		return api.Operational
	case s == "HASISSUES":
		return api.Degraded
	case strings.HasSuffix(s, "MAJOROUTAGE"):
		return api.MajorOutage
	case strings.HasSuffix(s, "PARTIALOUTAGE"):
		return api.PartialOutage
	case strings.HasSuffix(s, "DEGRADEDPERFORMANCE"), strings.HasSuffix(s, "MINOROUTAGE"):
		return api.Degraded
	case strings.HasSuffix(s, "UNDERMAINTENANCE"):
		return api.Maintenance
	}
	return api.Unknown
}

// instatusConvert maps one incident, reporting false for one without an id or
// with a start time that is missing or unreadable.
func instatusConvert(svc catalog.Service, in instatusIncident, resolved bool) (api.Incident, bool) {
	id := api.OfficialIncidentID(svc.Slug, in.ID)
	if id == "" {
		return api.Incident{}, false
	}
	started, ok := parseInstatusTime(in.Started)
	if !ok || started.IsZero() {
		return api.Incident{}, false
	}
	updated, ok := parseInstatusTime(in.UpdatedAt)
	if !ok {
		return api.Incident{}, false
	}
	if updated.IsZero() {
		updated = started
	}
	var ended *time.Time
	if resolved {
		ended = &updated
	}
	sev := api.Minor
	switch instatusStatus(in.Impact) {
	case api.MajorOutage:
		sev = api.Critical
	case api.PartialOutage:
		sev = api.Major
	}
	return api.Incident{
		ID:        id,
		Service:   svc.Slug,
		Headline:  in.Name,
		Severity:  sev,
		StartedAt: started,
		EndedAt:   ended,
		Status:    strings.ToLower(in.Status),
		Source:    api.SourceOfficial,
		URL:       cmp.Or(in.URL, svc.StatusPage),
		UpdatedAt: updated,
	}, true
}

// instatusJSDate is the layout of JavaScript's Date.prototype.toString once
// the trailing "(Time Zone Name)" is cut off.
const instatusJSDate = "Mon Jan 2 2006 15:04:05 GMT-0700"

// parseInstatusTime reads an RFC 3339 time or a JavaScript Date.toString()
// string such as "Tue Nov 18 2025 14:03:00 GMT+0000 (Coordinated Universal
// Time)", in UTC. An empty string is the zero time; ok is false only for a
// time that is present but unreadable.
func parseInstatusTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, ok := parseTime(s); ok {
		return t, true
	}
	if i := strings.IndexByte(s, '('); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	t, err := time.Parse(instatusJSDate, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
