package mcpserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// TestIncidentDurations phrases only the severities with percentiles (at
// history.MinBasis incidents), and nothing without any.
func TestIncidentDurations(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var incidents []api.Incident
	for i := range history.MinBasis {
		start := base.Add(time.Duration(i) * 24 * time.Hour)
		end := start.Add(time.Duration(10*(i+1)) * time.Minute)
		incidents = append(incidents, api.Incident{ID: fmt.Sprint("openai-", i), Service: "openai", Severity: api.Major,
			StartedAt: start, EndedAt: &end, Source: api.SourceOfficial})
	}
	if got, want := incidentDurations(history.ComputeReliability("openai", incidents, nil)), "Its ended incidents lasted: major p50 30 min, p90 50 min (5)."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := incidentDurations(history.ComputeReliability("openai", incidents[1:], nil)); got != "" {
		t.Errorf("below MinBasis: %q", got)
	}
}
