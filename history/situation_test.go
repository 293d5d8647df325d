package history

import (
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestSituation: every subject of the documents, with the status, basis
// and open incidents the documents give it and a source that names where
// that comes from; a model at a service is the best of its entries there.
func TestSituation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	pct := func(v float64) *float64 { return &v }
	ended := now.Add(-time.Hour)
	open := api.Incident{ID: "anthropic-open", Service: "anthropic", StartedAt: now.Add(-10 * time.Minute)}
	closed := api.Incident{ID: "anthropic-closed", Service: "anthropic", StartedAt: now.Add(-2 * time.Hour), EndedAt: &ended}
	appDown := api.Incident{ID: "anthropic-app", Service: "anthropic", StartedAt: now.Add(-5 * time.Minute)}
	gw := api.ModelSource{ID: "openrouter", Kind: api.ModelSourceGateway, Name: "OpenRouter", Window: "5m"}
	measuredSrc := api.ModelSource{ID: "aistatus", Kind: api.ModelSourceMeasured, Name: "aistatus's own completions", Window: "1h"}
	services := []api.ServiceDoc{
		{Slug: "anthropic", Name: "Anthropic", Status: api.Operational, Basis: api.BasisOfficial,
			Sources:   api.Sources{Feed: api.FeedSource{State: api.FeedOK}},
			Incidents: []api.Incident{open, closed},
			Surfaces: []api.SurfaceDoc{
				{ID: catalog.SurfaceAPI, Name: "Anthropic API", Status: api.Operational, Basis: api.BasisOfficial},
				{ID: catalog.SurfaceApp, Name: "claude.ai", Status: api.MajorOutage, Basis: api.BasisOfficial,
					Source: "The official page's components in the scope of claude.ai.", Incidents: []api.Incident{appDown}},
			},
			Measured: []api.MeasuredModel{{Model: "anthropic/claude-sonnet-4.5", Status: api.Degraded, Windows: api.MeasuredWindows{
				Hour: api.MeasuredWindow{Samples: 4, TTFTMs: api.Percentiles{P50: pct(410)}, ErrorRate: pct(0.25)}}}},
		},
		{Slug: "openai", Name: "OpenAI", Status: api.Degraded, Basis: api.BasisMeasured,
			Sources: api.Sources{Disagreement: &api.Disagreement{By: api.EvidenceMeasured, Detail: "Our completions fail while the page says operational."}}},
		{Slug: "never", Name: "Never Checked"}, // no status, no basis: a service not assembled
	}
	models := []api.ModelDoc{
		{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Service: "anthropic", Status: api.Operational,
			StatusFrom: &api.ModelStatusFrom{Service: "aws-bedrock", Provider: "Amazon Bedrock", Source: gw},
			Providers: []api.ModelProvider{
				{Service: "anthropic", Provider: "Anthropic", Status: api.MajorOutage, Uptime: pct(30), Source: gw},
				{Service: "anthropic", Provider: "Anthropic", Status: api.Degraded, Uptime: pct(75), Source: measuredSrc},
				{Service: "aws-bedrock", Provider: "Amazon Bedrock", Status: api.Operational, Uptime: pct(99.9), Source: gw},
			}},
		{ID: "openai/gpt-5", Name: "GPT-5", Service: "openai", Status: api.Unknown, Providers: []api.ModelProvider{}},
	}
	got := Situation(now, services, models, nil)
	want := []struct {
		id, kind, service string
		status            api.Status
		basis             string
		open              []string
		source            string // a part of the source line
		measured          bool
	}{
		{"anthropic", api.SubjectService, "anthropic", api.Operational, "official", []string{"anthropic-open"}, "read this cycle", false},
		{"anthropic/app", api.SubjectSurface, "anthropic", api.MajorOutage, "official", []string{"anthropic-app"}, "scope of claude.ai", false},
		{"openai", api.SubjectService, "openai", api.Degraded, "measured", nil, "Our completions fail", false},
		{"never", api.SubjectService, "never", api.Unknown, "none", nil, "Nothing to go on", false},
		{"model:anthropic/claude-sonnet-4.5", api.SubjectModel, "anthropic", api.Operational, "gateway", nil,
			"OpenRouter (gateway, window 5m) for Amazon Bedrock at aws-bedrock, uptime 99.9%", false},
		// The best of the gateway's major outage and our completions'
		// degraded, from the entry that says it.
		{"model:anthropic/claude-sonnet-4.5@anthropic", api.SubjectModelProvider, "anthropic", api.Degraded, "measured", nil,
			"aistatus's own completions (measured, window 1h) for Anthropic at anthropic, uptime 75%", true},
		{"model:anthropic/claude-sonnet-4.5@aws-bedrock", api.SubjectModelProvider, "aws-bedrock", api.Operational, "gateway", nil, "Amazon Bedrock", false},
		{"model:openai/gpt-5", api.SubjectModel, "openai", api.Unknown, "none", nil, "No source reports", false},
	}
	if len(got.Subjects) != len(want) {
		t.Fatalf("%d subjects, want %d: %+v", len(got.Subjects), len(want), got.Subjects)
	}
	for i, w := range want {
		s := got.Subjects[i]
		if s.ID != w.id || s.Kind != w.kind || s.Service != w.service || s.Status != w.status || s.Basis != w.basis {
			t.Errorf("subject %d = %s %s %s %s %s, want %s %s %s %s %s", i, s.ID, s.Kind, s.Service, s.Status, s.Basis,
				w.id, w.kind, w.service, w.status, w.basis)
		}
		if s.OpenIncidents == nil || strings.Join(s.OpenIncidents, " ") != strings.Join(w.open, " ") {
			t.Errorf("%s: open incidents %v, want %v", s.ID, s.OpenIncidents, w.open)
		}
		if !strings.Contains(s.Source, w.source) {
			t.Errorf("%s: source %q, want it to say %q", s.ID, s.Source, w.source)
		}
		if (s.Measured != nil) != w.measured {
			t.Errorf("%s: measured %+v, want figures: %v", s.ID, s.Measured, w.measured)
		}
	}
	m := got.Subjects[5].Measured
	if m == nil || m.Samples != 4 || *m.TTFTP50Ms != 410 || *m.ErrorRate != 0.25 || m.Window != "1h" {
		t.Errorf("measured figures %+v, want the hour's: 4 samples, p50 410 ms, 25%% errors", m)
	}
	if !got.GeneratedAt.Equal(now) || got.License != api.License {
		t.Errorf("generatedAt %s, license %q", got.GeneratedAt, got.License)
	}
}
