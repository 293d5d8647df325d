package history

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

func ok(at time.Time, ttft, total float64) api.CompletionSample {
	return api.CompletionSample{At: at, Outcome: api.OutcomeOK, HTTPStatus: 200, TTFTMs: &ttft, TotalMs: &total}
}

func failed(at time.Time, o api.CompletionOutcome, status int, code string) api.CompletionSample {
	return api.CompletionSample{At: at, Outcome: o, HTTPStatus: status, Code: code}
}

var probeA = &catalog.CompletionProbe{Style: catalog.StyleOpenAI, URL: "https://api.example.com/v1/chat/completions", KeyEnv: "K",
	Models: []catalog.MeasuredModelRef{{ID: "openai/gpt-4o-mini", Model: "gpt-4o-mini"}}}

// TestMeasuredStatus states the measured rule one history at a time.
func TestMeasuredStatus(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	min := func(n int) time.Time { return now.Add(-time.Duration(n) * time.Minute) }
	tests := []struct {
		name    string
		samples []api.CompletionSample
		want    api.Status
		note    bool
	}{
		{"no samples: not listed", nil, "", false},
		{"latest succeeded", []api.CompletionSample{ok(min(2), 300, 400), ok(min(1), 310, 420)}, api.Operational, false},
		{"one failure: degraded", []api.CompletionSample{ok(min(2), 300, 400), failed(min(1), api.OutcomeOverloaded, 529, "overloaded_error")}, api.Degraded, false},
		{"three failures in a row: down", []api.CompletionSample{
			failed(min(3), api.OutcomeOverloaded, 529, ""), failed(min(2), api.OutcomeServerError, 500, ""), failed(min(1), api.OutcomeStreamCut, 200, "")}, api.MajorOutage, false},
		{"rate limits never read down", []api.CompletionSample{
			failed(min(3), api.OutcomeRateLimited, 429, ""), failed(min(2), api.OutcomeRateLimited, 429, ""), failed(min(1), api.OutcomeRateLimited, 429, "")}, api.Degraded, false},
		{"our refused key in between does not count", []api.CompletionSample{
			failed(min(4), api.OutcomeOverloaded, 529, ""), failed(min(3), api.OutcomeOverloaded, 529, ""),
			failed(min(2), api.OutcomeKeyRefused, 401, "invalid_api_key"), failed(min(1), api.OutcomeOverloaded, 529, "")}, api.MajorOutage, false},
		{"our refused key last: unknown, whatever came before", []api.CompletionSample{
			failed(min(3), api.OutcomeOverloaded, 529, ""), failed(min(2), api.OutcomeOverloaded, 529, ""),
			failed(min(1), api.OutcomeKeyRefused, 401, "invalid_api_key")}, api.Unknown, true},
		{"discarded last (our network): unknown, not the last success", []api.CompletionSample{
			ok(min(2), 300, 400), failed(min(1), api.OutcomeDiscarded, 0, "")}, api.Unknown, false},
		{"only our refused key: unknown, with why", []api.CompletionSample{failed(min(1), api.OutcomeKeyRefused, 401, "invalid_api_key")}, api.Unknown, true},
		{"discarded (our network): unknown", []api.CompletionSample{failed(min(1), api.OutcomeDiscarded, 0, "")}, api.Unknown, false},
		{"stale: unknown", []api.CompletionSample{ok(min(61), 300, 400)}, api.Unknown, false},
		{"recovered but the hour's error rate is high: degraded", []api.CompletionSample{
			failed(min(6), api.OutcomeOverloaded, 529, ""), ok(min(5), 1, 2), failed(min(4), api.OutcomeOverloaded, 529, ""),
			ok(min(3), 1, 2), ok(min(2), 1, 2), ok(min(1), 1, 2)}, api.Degraded, false},
		{"one old failure in a good hour: operational", []api.CompletionSample{
			failed(min(9), api.OutcomeOverloaded, 529, ""), ok(min(8), 1, 2), ok(min(7), 1, 2), ok(min(6), 1, 2),
			ok(min(5), 1, 2), ok(min(4), 1, 2), ok(min(3), 1, 2), ok(min(2), 1, 2), ok(min(1), 1, 2)}, api.Operational, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := &ServiceHistory{}
			for _, s := range tt.samples {
				sh.RecordCompletion("openai/gpt-4o-mini", s)
			}
			got := sh.Measured(probeA, now)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no model listed", got)
				}
				return
			}
			if len(got) != 1 || got[0].Status != tt.want {
				t.Fatalf("got %+v, want status %s", got, tt.want)
			}
			if (got[0].Note != "") != tt.note {
				t.Fatalf("note %q", got[0].Note)
			}
		})
	}
}

func TestMeasuredWindows(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	sh := &ServiceHistory{}
	// 20 successes in the hour, TTFT 101..120 ms, total TTFT+100; one 529
	// and one refused key; older samples for the day window only.
	sh.RecordCompletion("openai/gpt-4o-mini", ok(now.Add(-25*time.Hour), 1, 1)) // pruned by the next
	for i := range 10 {
		sh.RecordCompletion("openai/gpt-4o-mini", ok(now.Add(-5*time.Hour+time.Duration(i)*time.Minute), 1000, 2000))
	}
	for i := range 20 {
		v := float64(101 + i)
		sh.RecordCompletion("openai/gpt-4o-mini", ok(now.Add(-50*time.Minute+time.Duration(i)*time.Minute), v, v+100))
	}
	sh.RecordCompletion("openai/gpt-4o-mini", failed(now.Add(-20*time.Minute), api.OutcomeOverloaded, 529, "overloaded_error"))
	sh.RecordCompletion("openai/gpt-4o-mini", failed(now.Add(-10*time.Minute), api.OutcomeKeyRefused, 401, "invalid_api_key"))
	got := sh.Measured(probeA, now)[0]
	h, d := got.Windows.Hour, got.Windows.Day
	if h.Window != "1h" || d.Window != "24h" {
		t.Fatalf("windows %q %q", h.Window, d.Window)
	}
	if h.Samples != 21 || d.Samples != 31 {
		t.Fatalf("samples 1h %d 24h %d, want 21 and 31 (the refused key and the pruned sample not counted)", h.Samples, d.Samples)
	}
	if *h.TTFTMs.P50 != 110 || *h.TTFTMs.P95 != 119 || *h.TotalMs.P50 != 210 {
		t.Fatalf("1h ttft %v/%v total %v", *h.TTFTMs.P50, *h.TTFTMs.P95, *h.TotalMs.P50)
	}
	if *d.TTFTMs.P95 != 1000 {
		t.Fatalf("24h ttft p95 %v", *d.TTFTMs.P95)
	}
	if *h.ErrorRate != 0.0476 || h.LastError == nil || h.LastError.HTTPStatus != 529 || h.LastError.Code != "overloaded_error" {
		t.Fatalf("1h errorRate %v lastError %+v", *h.ErrorRate, h.LastError)
	}
	if got.LastOutcome != api.OutcomeKeyRefused || got.Status != api.Unknown || got.Note == "" { // our key, refused last
		t.Fatalf("last outcome %s status %s", got.LastOutcome, got.Status)
	}
	if len(sh.Completions["openai/gpt-4o-mini"]) != 32 {
		t.Fatalf("%d samples kept, want 32", len(sh.Completions["openai/gpt-4o-mini"]))
	}
}

func TestServiceMeasured(t *testing.T) {
	t.Parallel()
	m := func(s ...api.Status) []api.MeasuredModel {
		var out []api.MeasuredModel
		for _, st := range s {
			out = append(out, api.MeasuredModel{Status: st})
		}
		return out
	}
	for _, tt := range []struct {
		models []api.MeasuredModel
		want   api.Status
	}{
		{nil, api.Unknown},
		{m(api.Unknown), api.Unknown},
		{m(api.Operational, api.Unknown), api.Operational},
		{m(api.Operational, api.Degraded), api.Degraded},
		{m(api.MajorOutage, api.Unknown), api.MajorOutage},
		{m(api.MajorOutage, api.Operational), api.PartialOutage},
	} {
		if got := ServiceMeasured(tt.models); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.models, got, tt.want)
		}
	}
}

// TestCompletionsCorrupt: a history with samples no build writes is corrupt.
func TestCompletionsCorrupt(t *testing.T) {
	t.Parallel()
	now := time.Now()
	neg := -1.0
	for name, list := range map[string][]api.CompletionSample{
		"unknown outcome": {{At: now, Outcome: "fine"}},
		"negative time":   {{At: now, Outcome: api.OutcomeOK, TTFTMs: &neg}},
		"out of order":    {ok(now, 1, 2), ok(now.Add(-time.Minute), 1, 2)},
	} {
		h := New()
		h.Track("openai").Completions = map[string][]api.CompletionSample{"openai/gpt-4o-mini": list}
		if err := h.checkValues(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
