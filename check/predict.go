package check

import (
	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// expectedResolution is how long the service's ended official incidents of
// the severity of its weightiest open one lasted (the worst severity, the
// newest among equals; open is newest first), or nil: with no open official
// incident, or fewer than history.MinBasis ended ones of that severity
// behind the figures. Our own probe incidents get none: the durations are
// of official incidents, whose process is the provider's.
func expectedResolution(view View, slug string, open []*api.Incident) *api.ExpectedResolution {
	inc := weightiest(open)
	if inc == nil {
		return nil
	}
	rel, ok := view.Reliability(slug)
	if !ok {
		return nil
	}
	stats := rel.IncidentDuration.Of(inc.Severity)
	if stats.Incidents < history.MinBasis || stats.P50Minutes == nil || stats.P90Minutes == nil {
		return nil
	}
	return &api.ExpectedResolution{
		Incident: inc.ID, Severity: inc.Severity, StartedAt: inc.StartedAt.UTC(),
		P50Minutes: *stats.P50Minutes, P90Minutes: *stats.P90Minutes, Basis: stats.Incidents,
	}
}

// severityRank orders severities mildest first (api.Severities).
func severityRank(s api.Severity) int {
	for i, sev := range api.Severities {
		if sev == s {
			return i
		}
	}
	return -1
}
