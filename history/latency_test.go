package history

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

func TestLatBins(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ms   float64
		bin  int
		upto float64
	}{{0.3, 0, 1}, {1, 0, 1}, {1.1, 1, 1.2}, {100, 27, 107.6}, {128, 28, 128}, {129, 29, 152.2}, {1e9, maxLatBin, 1048576}} {
		if got := latBin(tt.ms); got != tt.bin || latBinUpper(got) != tt.upto {
			t.Errorf("%v ms: bin %d (up to %v), want %d (up to %v)", tt.ms, got, latBinUpper(got), tt.bin, tt.upto)
		}
		if latBinUpper(latBin(tt.ms)) < tt.ms && tt.ms < 1e6 {
			t.Errorf("%v ms: its bin's bound is below it", tt.ms)
		}
	}
}

// TestProbeLatency: p50 and p95 over the probes recorded in the window,
// each the upper bound of its bin; older hours count in 7 d only.
func TestProbeLatency(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC)
	sh := &ServiceHistory{}
	lat := func(v float64) *float64 { return &v }
	// 3 days ago: 20 slow probes (900 ms).
	for i := range 20 {
		sh.Record(now.Add(-72*time.Hour+time.Duration(i)*time.Minute), api.Operational, lat(900))
	}
	// The last hours: 18 probes at 100 ms, 2 at 400 ms, one failure (nil).
	for i := range 18 {
		sh.Record(now.Add(-3*time.Hour+time.Duration(i)*time.Minute), api.Operational, lat(100))
	}
	sh.Record(now.Add(-time.Hour), api.Operational, lat(400))
	sh.Record(now.Add(-time.Minute), api.Operational, lat(400))
	sh.Record(now, api.MajorOutage, nil)
	got := sh.ProbeLatency(now)
	if got.H24.Samples != 20 || *got.H24.P50 != 107.6 || *got.H24.P95 != 430.5 {
		t.Errorf("24h: %d samples, p50 %v, p95 %v", got.H24.Samples, *got.H24.P50, *got.H24.P95)
	}
	if got.D7.Samples != 40 || *got.D7.P50 != 430.5 || *got.D7.P95 != 1024 { // the 20th of 40 is a 400 ms one
		t.Errorf("7d: %d samples, p50 %v, p95 %v", got.D7.Samples, *got.D7.P50, *got.D7.P95)
	}
	if empty := (&ServiceHistory{}).ProbeLatency(now); empty.H24.Samples != 0 || empty.H24.P50 != nil {
		t.Errorf("no probes: %+v", empty)
	}
	// A histogram no build writes is corrupt.
	h := New()
	h.Services["x"] = &ServiceHistory{Buckets: []Bucket{{T: now.Truncate(time.Hour).Unix(), Probes: 1, LatencyMs: 5, LatBins: map[int]int{9: 2}}}}
	if err := h.checkValues(); err == nil {
		t.Error("more latencies than probes accepted")
	}
}
