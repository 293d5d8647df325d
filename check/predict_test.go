package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// endedIncidents are n ended official incidents of slug with severity sev,
// lasting 10, 20, … minutes, all before the test view's open incident.
func endedIncidents(slug string, sev api.Severity, n int) []api.Incident {
	var list []api.Incident
	for i := range n {
		start := genTime.Add(-time.Duration(i+2) * 24 * time.Hour)
		end := start.Add(time.Duration(10*(i+1)) * time.Minute)
		list = append(list, api.Incident{ID: fmt.Sprintf("%s-old%d", slug, i), Service: slug, Severity: sev,
			StartedAt: start, EndedAt: &end, Status: "resolved", Source: api.SourceOfficial})
	}
	return list
}

// TestExpectedResolution checks /check's expectedResolution at the edge of
// history.MinBasis, and when it must be absent. openai's open official
// incident in the test view is major, opened an hour before.
func TestExpectedResolution(t *testing.T) {
	t.Parallel()
	openProbe := api.Incident{ID: "groq-probe-1", Service: "groq", Headline: "API not reachable", Severity: api.Major,
		StartedAt: genTime.Add(-time.Hour), Status: "ongoing", Source: api.SourceProbe}
	for _, tt := range []struct {
		name, q  string
		history  []api.Incident
		extra    []api.Incident // added to the view's incidents
		noReport bool           // the snapshot has no reliability.json
		want     *api.ExpectedResolution
	}{
		{name: "one below the minimum", q: "openai", history: endedIncidents("openai", api.Major, history.MinBasis-1)},
		{name: "at the minimum", q: "openai", history: endedIncidents("openai", api.Major, history.MinBasis),
			// 10…50 minutes: nearest rank 3 of 5 for p50, 5 of 5 for p90.
			want: &api.ExpectedResolution{Incident: "openai-01", Severity: api.Major, StartedAt: genTime.Add(-time.Hour),
				P50Minutes: 30, P90Minutes: 50, Basis: 5}},
		{name: "twenty incidents", q: "openai", history: endedIncidents("openai", api.Major, 20),
			want: &api.ExpectedResolution{Incident: "openai-01", Severity: api.Major, StartedAt: genTime.Add(-time.Hour),
				P50Minutes: 100, P90Minutes: 180, Basis: 20}},
		// Plenty of history, of another severity: nothing for a major one.
		{name: "other severity", q: "openai", history: endedIncidents("openai", api.Minor, 10)},
		{name: "other service's history", q: "openai", history: endedIncidents("anthropic", api.Major, 10)},
		// No open incident: nothing to expect the end of.
		{name: "no open incident", q: "anthropic", history: endedIncidents("anthropic", api.Major, 10)},
		// Our probe's incident is not the provider's process.
		{name: "probe incident", q: "groq", history: endedIncidents("groq", api.Major, 10), extra: []api.Incident{openProbe}},
		{name: "snapshot without reliability", q: "openai", history: endedIncidents("openai", api.Major, 10), noReport: true},
		// The worst open incident decides: a critical one beside the major.
		{name: "worst severity", q: "openai", history: append(endedIncidents("openai", api.Major, 5), endedIncidents("openai", api.Critical, 6)...),
			extra: []api.Incident{{ID: "openai-09", Service: "openai", Headline: "Down", Severity: api.Critical,
				StartedAt: genTime.Add(-2 * time.Hour), Status: "investigating", Source: api.SourceOfficial}},
			want: &api.ExpectedResolution{Incident: "openai-09", Severity: api.Critical, StartedAt: genTime.Add(-2 * time.Hour),
				P50Minutes: 30, P90Minutes: 60, Basis: 6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			engine, view, _ := newTestEngine(t)
			view.incidents = append(view.incidents, tt.extra...)
			if !tt.noReport {
				slug := map[string]string{"openai": "openai", "anthropic": "anthropic", "groq": "groq"}[tt.q]
				view.reliability = map[string]api.Reliability{slug: history.ComputeReliability(slug, tt.history, nil)}
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
