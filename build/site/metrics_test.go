package site

import (
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
)

// TestMetricsSurfaceOutage: during a major outage of claude.ai and Claude
// Code with the Claude API up, a Prometheus alert on the surfaces sees it:
// the app's and agent's series are at major_outage while the API's, and
// the service's, stay operational; the measured completions' figures are
// there too.
func TestMetricsSurfaceOutage(t *testing.T) {
	t.Parallel()
	docs, h := claudeAppOutage(t)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	metrics := files[FileMetrics]
	buildtest.Golden(t, "claude-app-outage/metrics.txt", metrics)
	samples := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(metrics), "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			series, value := cutSample(line)
			samples[series] = value
		}
	}
	for _, tc := range []struct{ series, want string }{
		{`aistatus_surface_status{service="anthropic",surface="app",status="major_outage"}`, "1"},
		{`aistatus_surface_status{service="anthropic",surface="app",status="operational"}`, "0"},
		{`aistatus_surface_status{service="anthropic",surface="agent",status="major_outage"}`, "1"},
		{`aistatus_surface_status{service="anthropic",surface="console",status="operational"}`, "1"},
		{`aistatus_surface_status{service="anthropic",surface="api",status="operational"}`, "1"},
		{`aistatus_surface_status{service="anthropic",surface="api",status="major_outage"}`, "0"},
		{`aistatus_service_status{service="anthropic",status="operational"}`, "1"},
		{`aistatus_surface_status{service="openai",surface="api",status="degraded"}`, "1"},
		{`aistatus_surface_uptime_ratio{service="anthropic",surface="app",window="24h"}`, "0.9826"},
		{`aistatus_surface_uptime_coverage_ratio{service="anthropic",surface="app",window="7d"}`, "0.3"},
		{`aistatus_measured_ttft_seconds{service="anthropic",model="anthropic/claude-haiku-4.5",window="1h",percentile="p50"}`, "0.412"},
		{`aistatus_measured_ttft_seconds{service="anthropic",model="anthropic/claude-haiku-4.5",window="24h",percentile="p95"}`, "1.21"},
		{`aistatus_measured_error_ratio{service="anthropic",model="anthropic/claude-haiku-4.5",window="24h"}`, "0.010416666666666666"},
		{`aistatus_measured_error_ratio{service="anthropic",model="anthropic/claude-haiku-4.5",window="1h"}`, "0"},
		{`aistatus_measured_completions{service="anthropic",model="anthropic/claude-haiku-4.5",window="24h"}`, "288"},
		{`aistatus_model_status{model="cohere/command-a",status="degraded"}`, "1"},
		{`aistatus_model_provider_status{model="anthropic/claude-sonnet-4.5",service="anthropic",provider="Anthropic",source="openrouter",status="partial_outage"}`, "1"},
		{`aistatus_model_provider_uptime_ratio{model="anthropic/claude-sonnet-4.5",service="google-gemini",provider="Google",source="openrouter",window="5m"}`, "0.9725"},
	} {
		if got, ok := samples[tc.series]; got != tc.want {
			t.Errorf("%s = %q (present %v), want %s", tc.series, got, ok, tc.want)
		}
	}
	// A figure nobody has is left out, never 0.
	for series := range samples {
		if strings.Contains(series, `surface="app",window="30d"`) && strings.HasPrefix(series, "aistatus_surface_uptime_ratio") {
			t.Errorf("%s: claude.ai has no 30-day figure", series)
		}
	}
}

// cutSample splits a sample line into its series and value: the value is
// after the last space, label values may have spaces.
func cutSample(line string) (series, value string) {
	i := strings.LastIndexByte(line, ' ')
	return line[:i], line[i+1:]
}

// TestMetricsSeriesUnique: no series is written twice (Prometheus refuses
// a scrape with a duplicate sample, which promtool's linter lets through),
// and every sample's family has HELP and TYPE lines before it.
func TestMetricsSeriesUnique(t *testing.T) {
	t.Parallel()
	_, fixtureFiles := render(t)
	docs, h := claudeAppOutage(t)
	outageFiles, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	for name, metrics := range map[string][]byte{"fixture": fixtureFiles[FileMetrics], "claude.ai outage": outageFiles[FileMetrics]} {
		seen := map[string]bool{}
		typed := map[string]bool{}
		for _, line := range strings.Split(strings.TrimSuffix(string(metrics), "\n"), "\n") {
			if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
				family, _, _ := strings.Cut(rest, " ")
				typed[family] = true
				continue
			}
			if strings.HasPrefix(line, "#") {
				continue
			}
			series, _ := cutSample(line)
			family, _, _ := strings.Cut(series, "{")
			if !typed[family] {
				t.Errorf("%s: %s before its family's TYPE line", name, series)
			}
			if seen[series] {
				t.Errorf("%s: %s written twice", name, series)
			}
			seen[series] = true
		}
	}
}

// TestModelProviderSeries: a model's entries become one series per
// service, provider and source; a source's regions or variants of one
// provider give the best of them (the rule of a model's status, unknown
// last), the higher uptime on a tie.
func TestModelProviderSeries(t *testing.T) {
	t.Parallel()
	pct := func(v float64) *float64 { return &v }
	region := func(r string) *string { return &r }
	gateway := api.ModelSource{ID: "openrouter", Window: "5m"}
	measured := api.ModelSource{ID: "aistatus", Window: "1h"}
	type series struct {
		provider, source string
		status           api.Status
		uptime           float64
	}
	for _, tc := range []struct {
		name      string
		providers []api.ModelProvider
		want      []series
	}{
		{"one entry each", []api.ModelProvider{
			{Service: "anthropic", Provider: "Anthropic", Status: api.Operational, Uptime: pct(99.5), Source: gateway},
			{Service: "anthropic", Provider: "Anthropic", Status: api.MajorOutage, Uptime: pct(10), Source: measured},
		}, []series{{"Anthropic", "openrouter", api.Operational, 99.5}, {"Anthropic", "aistatus", api.MajorOutage, 10}}},
		{"regions of one provider: the best", []api.ModelProvider{
			{Service: "google-gemini", Provider: "Google Vertex", Region: region("europe-west1"), Status: api.MajorOutage, Uptime: pct(40), Source: gateway},
			{Service: "google-gemini", Provider: "Google Vertex", Region: region("us-east5"), Status: api.Operational, Uptime: pct(99), Source: gateway},
			{Service: "google-gemini", Provider: "Google Vertex", Region: region("global"), Status: api.Unknown, Source: gateway},
		}, []series{{"Google Vertex", "openrouter", api.Operational, 99}}},
		{"a tie: the higher uptime", []api.ModelProvider{
			{Service: "fireworks", Provider: "Fireworks", Status: api.Operational, Uptime: pct(99.1), Source: gateway},
			{Service: "fireworks", Provider: "Fireworks", Region: region("fast"), Status: api.Operational, Uptime: pct(99.8), Source: gateway},
		}, []series{{"Fireworks", "openrouter", api.Operational, 99.8}}},
		{"unknown loses to any known status", []api.ModelProvider{
			{Service: "together", Provider: "Together", Status: api.Unknown, Source: gateway},
			{Service: "together", Provider: "Together", Status: api.PartialOutage, Uptime: pct(70), Source: gateway},
		}, []series{{"Together", "openrouter", api.PartialOutage, 70}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []series
			for _, p := range modelProviders(tc.providers) {
				got = append(got, series{p.Provider, p.Source.ID, p.Status, uptimeOf(p)})
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("series %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestMetricsWitnesses: /metrics says how many witnesses stand behind a
// model's status at a service, with their verdict, and a gateway's keyless
// time to first token per provider, in seconds; the models page says the
// verdict and the figure in words.
func TestMetricsWitnesses(t *testing.T) {
	t.Parallel()
	docs, h := fixture(t)
	up, low := 99.86, 40.0
	// The fixture's documents are shared: this test's are its own.
	docs.Models.Models = slices.Clone(docs.Models.Models)
	for i, md := range docs.Models.Models {
		if md.ID != "anthropic/claude-sonnet-4.5" {
			continue
		}
		md.Providers = append(slices.Clone(md.Providers), api.ModelProvider{Service: "aws-bedrock", Provider: "bedrock", Status: api.Operational, Uptime: &up,
			Latency: &api.ModelPercentiles{P50: 675, P95: 2717, Window: "1h"},
			Source:  api.ModelSource{ID: "vercel", Kind: api.ModelSourceGateway, Name: "Vercel AI Gateway", Window: "15m"}})
		md.Agreement = []api.ModelAgreement{{Service: "aws-bedrock", Status: api.Operational, Verdict: api.AgreementGatewayTrouble,
			Statement: "OpenRouter's own requests fail (major_outage) while Vercel AI Gateway sees the model operational: OpenRouter's routing, not the provider's.",
			Witnesses: []api.ModelWitness{
				{Source: "openrouter", Kind: api.ModelSourceGateway, Status: api.MajorOutage, Uptime: &low, Counted: true},
				{Source: "vercel", Kind: api.ModelSourceGateway, Status: api.Operational, Uptime: &up, Counted: true},
				{Source: "aws-bedrock", Kind: api.ModelSourceProbe, Status: api.Operational},
			}}}
		docs.Models.Models[i] = md
	}
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	samples := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(string(files[FileMetrics]), "\n"), "\n") {
		if !strings.HasPrefix(line, "#") {
			series, value := cutSample(line)
			samples[series] = value
		}
	}
	// The models page says it too.
	page := string(files[FileModelsPage])
	for _, want := range []string{"OpenRouter&#39;s routing, not the provider&#39;s.", "first token 675 ms p50 over 1h"} {
		if !strings.Contains(page, want) {
			t.Errorf("the models page lacks %q", want)
		}
	}
	for series, want := range map[string]string{
		`aistatus_model_agreement_witnesses{model="anthropic/claude-sonnet-4.5",service="aws-bedrock",verdict="gateway_trouble"}`:                                         "2",
		`aistatus_model_provider_ttft_seconds{model="anthropic/claude-sonnet-4.5",service="aws-bedrock",provider="bedrock",source="vercel",window="1h",percentile="p50"}`: "0.675",
		`aistatus_model_provider_ttft_seconds{model="anthropic/claude-sonnet-4.5",service="aws-bedrock",provider="bedrock",source="vercel",window="1h",percentile="p95"}`: "2.717",
	} {
		if got, ok := samples[series]; got != want {
			t.Errorf("%s = %q (present %v), want %s", series, got, ok, want)
		}
	}
}
