package site

import (
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestTTFTChart: one bar per hour, its height the hour's median TTFT
// against the highest, amber for an hour with failures, red for an hour of
// failures only, grey for an hour without samples; and the service page
// draws it with the figures beside it.
func TestTTFTChart(t *testing.T) {
	t.Parallel()
	docs, h, err := buildFixture() // its own: this test adds samples
	if err != nil {
		t.Fatal(err)
	}
	now := docs.Manifest.GeneratedAt
	id := "openai/gpt-4o-mini"
	sh := h.Services["openai"]
	hourAgo := func(n int) time.Time {
		return now.Truncate(time.Hour).Add(-time.Duration(n) * time.Hour).Add(time.Minute)
	}
	okAt := func(at time.Time, ttft float64) api.CompletionSample {
		total := ttft + 50
		return api.CompletionSample{At: at, Outcome: api.OutcomeOK, HTTPStatus: 200, TTFTMs: &ttft, TotalMs: &total}
	}
	for _, s := range []api.CompletionSample{
		okAt(hourAgo(3), 400), okAt(hourAgo(3).Add(time.Minute), 200), okAt(hourAgo(3).Add(2*time.Minute), 300), // median 300
		{At: hourAgo(2), Outcome: api.OutcomeOverloaded, HTTPStatus: 529, Code: "overloaded_error"}, // failures only
		okAt(hourAgo(1), 600), {At: hourAgo(1).Add(time.Minute), Outcome: api.OutcomeServerError, HTTPStatus: 500},
		okAt(hourAgo(0), 150),
	} {
		sh.RecordCompletion(id, s)
	}
	probe := &catalog.CompletionProbe{Models: []catalog.MeasuredModelRef{{ID: id, Model: "gpt-4o-mini"}}}
	for i := range docs.Services {
		if docs.Services[i].Slug == "openai" {
			docs.Services[i].Measured = sh.Measured(probe, now)
		}
	}
	m := newModel(docs, h)
	charts := m.bySlug["openai"].TTFT
	if len(charts) != 1 || len(charts[0].Bars) != ttftHours {
		t.Fatalf("charts %+v", charts)
	}
	bars := charts[0].Bars
	want := []struct {
		class string
		h     int
	}{{"up", 16}, {"major", barHeight}, {"minor", barHeight}, {"up", 8}} // 300/600 and 150/600 of 32
	for i, w := range want {
		b := bars[ttftHours-4+i]
		if b.Class != w.class || b.H != w.h || b.Y != barHeight-b.H {
			t.Errorf("bar %d hours ago: %+v, want class %s height %d", 3-i, b, w.class, w.h)
		}
	}
	if bars[0].Class != "nodata" {
		t.Errorf("an hour without samples: %+v", bars[0])
	}
	var files map[string][]byte
	files, err = Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files[ServicePage("openai")])
	for _, s := range []string{`<h2 id="measured">Measured completions</h2>`, "openai/gpt-4o-mini", `aria-label="Hourly median time to first token of openai/gpt-4o-mini over the last 24 hours: p50 300 ms, p95 600 ms over 24 h."`,
		"last error server_error (HTTP 500)"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	other := string(files[ServicePage("anthropic")])
	if strings.Contains(other, `id="measured"`) {
		t.Error("a service measured by nobody has a measured section")
	}
	// Our probe's latency is drawn wherever it has figures.
	for _, s := range []string{`<h2 id="latency">Our probe's latency</h2>`, "p50 90 ms, p95 90 ms over 24 h (139 probes)",
		`aria-label="Hourly median latency of our probe of Anthropic&#39;s API host over the last 24 hours: p50 90 ms, p95 90 ms over 24 h."`} {
		if !strings.Contains(other, s) {
			t.Errorf("anthropic's page lacks %q", s)
		}
	}
}
