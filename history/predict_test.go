package history

import (
	"fmt"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

func intp(v int) *int { return &v }

func equalIntp(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// TestComputeReliability checks the durations and acknowledgement figures:
// nearest-rank percentiles, published from MinBasis on, counting only the
// service's ended official incidents.
func TestComputeReliability(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	ended := func(slug string, sev api.Severity, src string, minutes ...int) []api.Incident {
		var out []api.Incident
		for i, m := range minutes {
			start := base.Add(time.Duration(i) * 24 * time.Hour)
			end := start.Add(time.Duration(m) * time.Minute)
			out = append(out, api.Incident{ID: fmt.Sprint(slug, sev, src, i), Service: slug, Severity: sev, StartedAt: start, EndedAt: &end, Source: src})
		}
		return out
	}
	var incidents []api.Incident
	incidents = append(incidents, ended("openai", api.Major, api.SourceOfficial, 50, 10, 40, 20, 30)...)                                            // exactly MinBasis
	incidents = append(incidents, ended("openai", api.Minor, api.SourceOfficial, 5, 6, 7, 8)...)                                                    // one below
	incidents = append(incidents, ended("openai", api.Critical, api.SourceProbe, 1, 2, 3, 4, 5, 6)...)                                              // ours: left out
	incidents = append(incidents, ended("anthropic", api.Critical, api.SourceOfficial, 1, 2, 3, 4, 5, 6)...)                                        // another service
	incidents = append(incidents, api.Incident{ID: "open", Service: "openai", Severity: api.Critical, StartedAt: base, Source: api.SourceOfficial}) // open: no duration yet
	r := ComputeReliability("openai", incidents, nil)
	for _, tt := range []struct {
		sev      api.Severity
		n        int
		p50, p90 *int
	}{
		{api.Major, 5, intp(30), intp(50)},
		{api.Minor, 4, nil, nil},
		{api.Critical, 0, nil, nil},
	} {
		got := r.IncidentDuration.Of(tt.sev)
		if got.Incidents != tt.n || !equalIntp(got.P50Minutes, tt.p50) || !equalIntp(got.P90Minutes, tt.p90) {
			t.Errorf("%s: %d incidents, p50 %v, p90 %v; want %d, %v, %v", tt.sev, got.Incidents, got.P50Minutes, got.P90Minutes, tt.n, tt.p50, tt.p90)
		}
	}
	if r.Since == nil || !r.Since.Equal(base) || r.MinBasis != MinBasis || r.Source == "" {
		t.Errorf("since %v, minBasis %d, source %q", r.Since, r.MinBasis, r.Source)
	}

	// Six outages our probes saw, five acknowledged after 2…10 minutes.
	var detections []Detection
	for i := range 6 {
		start := base.Add(time.Duration(i) * time.Hour)
		d := Detection{Start: start, End: start.Add(30 * time.Minute), GreenSeconds: float64(60 * (i + 1))}
		if i < 5 {
			ack := start.Add(time.Duration(2*(i+1)) * time.Minute)
			d.AckAt, d.End = &ack, ack
		}
		detections = append(detections, d)
	}
	a := ComputeReliability("openai", nil, detections).Acknowledgement
	want := api.Acknowledgement{Outages: 6, Acknowledged: 5, LagP50Minutes: intp(6), LagP90Minutes: intp(10), GreenP50Minutes: intp(3), GreenP90Minutes: intp(6)}
	if a.Outages != want.Outages || a.Acknowledged != want.Acknowledged || !equalIntp(a.LagP50Minutes, want.LagP50Minutes) ||
		!equalIntp(a.LagP90Minutes, want.LagP90Minutes) || !equalIntp(a.GreenP50Minutes, want.GreenP50Minutes) || !equalIntp(a.GreenP90Minutes, want.GreenP90Minutes) {
		t.Errorf("acknowledgement = %+v, want %+v", a, want)
	}
	// Five outages, four acknowledged: green minutes over the five, no lag.
	if a := ComputeReliability("openai", nil, detections[1:]).Acknowledgement; a.Acknowledged != 4 || a.LagP50Minutes != nil || !equalIntp(a.GreenP50Minutes, intp(4)) {
		t.Errorf("one below MinBasis: %+v", a)
	}
	// Nothing retained: nothing claimed.
	if e := ComputeReliability("openai", nil, nil); e.Since != nil || e.IncidentDuration.Major.Incidents != 0 || e.Acknowledgement.Outages != 0 {
		t.Errorf("empty history: %+v", e)
	}
}

// TestPruneDetections drops detections that ended beyond KeepIncidents,
// and those no build writes.
func TestPruneDetections(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	early := now.Add(-2 * time.Hour)
	sh := &ServiceHistory{Detections: []Detection{
		{Start: now.Add(-KeepIncidents - 2*time.Hour), End: now.Add(-KeepIncidents - time.Hour)},
		{Start: now.Add(-time.Hour), End: now, GreenSeconds: 3600},
		// None a build writes: ended before it began, acknowledged before
		// it began, green for longer than it lasted.
		{Start: now, End: now.Add(-time.Hour)},
		{Start: now.Add(-time.Hour), AckAt: &early, End: now},
		{Start: now.Add(-time.Hour), End: now, GreenSeconds: 3601},
	}}
	h := &History{Services: map[string]*ServiceHistory{"openai": sh}}
	h.Prune(now)
	if len(sh.Detections) != 1 || !sh.Detections[0].End.Equal(now) {
		t.Errorf("detections after pruning: %+v", sh.Detections)
	}
}
