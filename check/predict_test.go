package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// endedIncidents are n ended official incidents of slug with severity sev,
// lasting 10, 20, … minutes, all before the test view's open incident.
func endedIncidents(slug string, sev snapshot.Severity, n int) []snapshot.Incident {
	var list []snapshot.Incident
	for i := range n {
		start := genTime.Add(-time.Duration(i+2) * 24 * time.Hour)
		end := start.Add(time.Duration(10*(i+1)) * time.Minute)
		list = append(list, snapshot.Incident{ID: fmt.Sprintf("%s-old%d", slug, i), Service: slug, Severity: sev,
			StartedAt: start, EndedAt: &end, Status: "resolved", Source: snapshot.SourceOfficial})
	}
	return list
}

// TestExpectedResolution checks /check's expectedResolution at the edge of
// snapshot.MinBasis, and when it must be absent. openai's open official
// incident in the test view is major, opened an hour before.
func TestExpectedResolution(t *testing.T) {
	t.Parallel()
	openProbe := snapshot.Incident{ID: "groq-probe-1", Service: "groq", Headline: "API not reachable", Severity: snapshot.Major,
		StartedAt: genTime.Add(-time.Hour), Status: "ongoing", Source: snapshot.SourceProbe}
	for _, tt := range []struct {
		name, q  string
		history  []snapshot.Incident
		extra    []snapshot.Incident // added to the view's incidents
		noReport bool                // the snapshot has no reliability.json
		want     *snapshot.ExpectedResolution
	}{
		{name: "one below the minimum", q: "openai", history: endedIncidents("openai", snapshot.Major, snapshot.MinBasis-1)},
		{name: "at the minimum", q: "openai", history: endedIncidents("openai", snapshot.Major, snapshot.MinBasis),
			// 10…50 minutes: nearest rank 3 of 5 for p50, 5 of 5 for p90.
			want: &snapshot.ExpectedResolution{Incident: "openai-01", Severity: snapshot.Major, StartedAt: genTime.Add(-time.Hour),
				P50Minutes: 30, P90Minutes: 50, Basis: 5}},
		{name: "twenty incidents", q: "openai", history: endedIncidents("openai", snapshot.Major, 20),
			want: &snapshot.ExpectedResolution{Incident: "openai-01", Severity: snapshot.Major, StartedAt: genTime.Add(-time.Hour),
				P50Minutes: 100, P90Minutes: 180, Basis: 20}},
		// Plenty of history, of another severity: nothing for a major one.
		{name: "other severity", q: "openai", history: endedIncidents("openai", snapshot.Minor, 10)},
		{name: "other service's history", q: "openai", history: endedIncidents("anthropic", snapshot.Major, 10)},
		// No open incident: nothing to expect the end of.
		{name: "no open incident", q: "anthropic", history: endedIncidents("anthropic", snapshot.Major, 10)},
		// Our probe's incident is not the provider's process.
		{name: "probe incident", q: "groq", history: endedIncidents("groq", snapshot.Major, 10), extra: []snapshot.Incident{openProbe}},
		{name: "snapshot without reliability", q: "openai", history: endedIncidents("openai", snapshot.Major, 10), noReport: true},
		// The worst open incident decides: a critical one beside the major.
		{name: "worst severity", q: "openai", history: append(endedIncidents("openai", snapshot.Major, 5), endedIncidents("openai", snapshot.Critical, 6)...),
			extra: []snapshot.Incident{{ID: "openai-09", Service: "openai", Headline: "Down", Severity: snapshot.Critical,
				StartedAt: genTime.Add(-2 * time.Hour), Status: "investigating", Source: snapshot.SourceOfficial}},
			want: &snapshot.ExpectedResolution{Incident: "openai-09", Severity: snapshot.Critical, StartedAt: genTime.Add(-2 * time.Hour),
				P50Minutes: 30, P90Minutes: 60, Basis: 6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			engine, view, _ := newTestEngine(t)
			view.incidents = append(view.incidents, tt.extra...)
			if !tt.noReport {
				slug := map[string]string{"openai": "openai", "anthropic": "anthropic", "groq": "groq"}[tt.q]
				view.reliability = map[string]snapshot.Reliability{slug: snapshot.ComputeReliability(slug, tt.history, nil)}
			}
			doc, err := engine.Check(view, Request{Query: tt.q, Error: "503"})
			if err != nil {
				t.Fatal(err)
			}
			got := doc.Verdict.ExpectedResolution
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("expectedResolution = %+v, want none", *got)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("expectedResolution = %+v, want %+v", got, *tt.want)
			}
		})
	}
}
