package feed

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// statuspage reads Atlassian Statuspage v2 pages and incident.io's
// Statuspage-compatible API. The two share paths and most fields; format says
// which one is being read, for the one rule that differs: incident.io pages
// may not serve incidents.json at all.
type statuspage struct {
	format snapshot.FeedFormat
}

// summaryDoc is the part of /api/v2/summary.json that is used.
type summaryDoc struct {
	Status struct {
		Indicator string `json:"indicator"`
	} `json:"status"`
	Components []spComponent `json:"components"`
	// Incidents are the unresolved incidents.
	Incidents []spIncident `json:"incidents"`
}

// incidentsDoc is the part of /api/v2/incidents.json that is used.
type incidentsDoc struct {
	Incidents []spIncident `json:"incidents"`
}

type spComponent struct {
	Name   string `json:"name"`
	Status string `json:"status"`
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
		Name string `json:"name"`
	} `json:"components"`
}

// Read fetches the summary and, when the service has one, the incident list.
func (a statuspage) Read(ctx context.Context, client *http.Client, svc snapshot.Service) (Result, error) {
	var sum summaryDoc
	if err := getJSON(ctx, client, svc.Feed.URL, &sum); err != nil {
		return Result{}, err
	}
	var listed []spIncident
	if svc.Feed.IncidentsURL != "" {
		var doc incidentsDoc
		err := getJSON(ctx, client, svc.Feed.IncidentsURL, &doc)
		var he *httpError
		switch {
		case err == nil:
			listed = doc.Incidents
		case a.format == snapshot.FormatIncidentIO && errors.As(err, &he) && he.Code == http.StatusNotFound:
			// Some incident.io pages do not serve this route; the summary's
			// unresolved incidents are then all there is.
		default:
			return Result{}, err
		}
	}
	return statuspageResult(svc, sum, listed), nil
}

// statuspageResult is what a summary and the listed incidents declare.
func statuspageResult(svc snapshot.Service, sum summaryDoc, listed []spIncident) Result {
	return Result{
		Status:    pageStatus(sum, svc.Feed.Filter),
		Incidents: incidents(svc, sum.Incidents, listed),
	}
}

// pageStatus is the worse of the page indicator and the component statuses,
// because the indicator is set by hand and often lags the components. With a
// filter, the indicator describes other products and is ignored.
func pageStatus(sum summaryDoc, filter []string) snapshot.Status {
	st := snapshot.Unknown
	if len(filter) == 0 {
		st = indicatorStatus(sum.Status.Indicator)
	}
	for _, c := range sum.Components {
		if c.Group || (len(filter) > 0 && !matches(c.Name, filter)) {
			continue
		}
		st = snapshot.Worse(st, componentStatus(c.Status))
	}
	return st
}

func indicatorStatus(indicator string) snapshot.Status {
	switch indicator {
	case "none":
		return snapshot.Operational
	case "minor":
		return snapshot.Degraded
	case "major":
		return snapshot.PartialOutage
	case "critical":
		return snapshot.MajorOutage
	case "maintenance":
		return snapshot.Maintenance
	}
	return snapshot.Unknown
}

// componentStatus maps a component status; an unknown string is Unknown,
// which snapshot.Worse lets any known status beat, so it is ignored.
func componentStatus(status string) snapshot.Status {
	switch status {
	case "operational":
		return snapshot.Operational
	case "degraded_performance":
		return snapshot.Degraded
	case "partial_outage":
		return snapshot.PartialOutage
	case "major_outage", "full_outage": // full_outage is incident.io's name
		return snapshot.MajorOutage
	case "under_maintenance":
		return snapshot.Maintenance
	}
	return snapshot.Unknown
}

// matches reports whether name contains one of the filter words, ignoring case.
func matches(name string, filter []string) bool {
	name = strings.ToLower(name)
	for _, w := range filter {
		if strings.Contains(name, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// incidents merges the summary's unresolved incidents with the incident
// list. The list is read after the summary and is the fuller record, so its
// version of an incident wins.
func incidents(svc snapshot.Service, unresolved, listed []spIncident) []snapshot.Incident {
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
	var out []snapshot.Incident
	for _, id := range order {
		if inc, ok := convert(svc, byID[id]); ok {
			out = append(out, inc)
		}
	}
	snapshot.SortIncidents(out)
	return out
}

// convert maps one upstream incident. It reports false for an incident to
// leave out: maintenance, one outside the filter, or one without an id or
// with a time that cannot be read (better missing than wrong).
func convert(svc snapshot.Service, in spIncident) (snapshot.Incident, bool) {
	if in.ID == "" || in.Impact == "maintenance" {
		return snapshot.Incident{}, false
	}
	if f := svc.Feed.Filter; len(f) > 0 && !incidentMatches(in, f) {
		return snapshot.Incident{}, false
	}
	started, ok := parseTime(cmp.Or(in.StartedAt, in.CreatedAt))
	if !ok || started.IsZero() {
		return snapshot.Incident{}, false
	}
	updated, ok := parseTime(in.UpdatedAt)
	if !ok {
		return snapshot.Incident{}, false
	}
	if updated.IsZero() {
		updated = started
	}
	resolved, ok := parseTime(in.ResolvedAt)
	if !ok {
		return snapshot.Incident{}, false
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
	return snapshot.Incident{
		ID:        svc.Slug + "-" + in.ID,
		Service:   svc.Slug,
		Headline:  in.Name,
		Severity:  severity(in.Impact),
		StartedAt: started,
		EndedAt:   ended,
		Status:    in.Status,
		Source:    snapshot.SourceOfficial,
		URL:       cmp.Or(in.Shortlink, svc.StatusPage),
		UpdatedAt: updated,
	}, true
}

// incidentMatches reports whether an incident concerns the filtered
// products: by an affected component, or by its name for incidents that
// list no components (incident.io never does).
func incidentMatches(in spIncident, filter []string) bool {
	for _, c := range in.Components {
		if matches(c.Name, filter) {
			return true
		}
	}
	return matches(in.Name, filter)
}

// severity maps an incident's impact. "none" still is an official incident,
// so it and any impact not known here count as minor.
func severity(impact string) snapshot.Severity {
	switch impact {
	case "major":
		return snapshot.Major
	case "critical":
		return snapshot.Critical
	}
	return snapshot.Minor
}

// parseTime parses an RFC 3339 time (with or without fractional seconds) and
// returns it in UTC. An empty string is the zero time; ok is false only for a
// time that is present but unreadable.
func parseTime(s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
