package mcpserver

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// TestIncidentDurations phrases only the severities with percentiles (at
// snapshot.MinBasis incidents), and nothing without any.
func TestIncidentDurations(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var incidents []snapshot.Incident
	for i := range snapshot.MinBasis {
		start := base.Add(time.Duration(i) * 24 * time.Hour)
		end := start.Add(time.Duration(10*(i+1)) * time.Minute)
		incidents = append(incidents, snapshot.Incident{ID: fmt.Sprint("openai-", i), Service: "openai", Severity: snapshot.Major,
			StartedAt: start, EndedAt: &end, Source: snapshot.SourceOfficial})
	}
	if got, want := incidentDurations(snapshot.ComputeReliability("openai", incidents, nil)), "Its ended incidents lasted: major p50 30 min, p90 50 min (5)."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := incidentDurations(snapshot.ComputeReliability("openai", incidents[1:], nil)); got != "" {
		t.Errorf("below MinBasis: %q", got)
	}
}
