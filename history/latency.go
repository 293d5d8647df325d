package history

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
)

// Our probe's latency is kept per hourly bucket as a histogram, so that
// p50 and p95 over a day or a week can be read back: a bucket's sum and
// count (LatencyMs, Probes) give only its mean. Bin k holds latencies in
// (2^((k-1)/4), 2^(k/4)] ms: each bin is 19% wider than the one below, and
// a percentile is published as the upper bound of its bin, so it is at
// most 19% above the latency it stands for, never below it.
const (
	latBinsPerDoubling = 4
	// maxLatBin is 2^20 ms, about 17 minutes: beyond any probe's timeout.
	maxLatBin = 20 * latBinsPerDoubling
)

// latBin is the bin of a latency in milliseconds.
func latBin(ms float64) int {
	if ms <= 1 {
		return 0
	}
	return min(int(math.Ceil(math.Log2(ms)*latBinsPerDoubling-1e-9)), maxLatBin)
}

// latBinUpper is the upper bound of bin k, in milliseconds, to 0.1 ms.
func latBinUpper(k int) float64 {
	return math.Round(math.Pow(2, float64(k)/latBinsPerDoubling)*10) / 10
}

// addLatency counts one successful probe's latency in the bucket's histogram.
func (b *Bucket) addLatency(ms float64) {
	if b.LatBins == nil {
		b.LatBins = map[int]int{}
	}
	b.LatBins[latBin(ms)]++
}

// checkLatBins reports a histogram no build writes.
func (b Bucket) checkLatBins() error {
	n := 0
	for k, c := range b.LatBins {
		if k < 0 || k > maxLatBin || c <= 0 || c > maxCount {
			return fmt.Errorf("latency bin %d: count %d out of range", k, c)
		}
		n += c
	}
	if n > b.Probes {
		return fmt.Errorf("%d latencies in the histogram for %d probes", n, b.Probes)
	}
	return nil
}

// ProbeLatency computes the 24 h and 7 d figures at now: over the hourly
// buckets that start within each window (the current hour included).
func (sh *ServiceHistory) ProbeLatency(now time.Time) api.ProbeLatency {
	return api.ProbeLatency{H24: sh.latencyWindow(now, 24*time.Hour), D7: sh.latencyWindow(now, 7*24*time.Hour)}
}

func (sh *ServiceHistory) latencyWindow(now time.Time, span time.Duration) api.LatencyWindow {
	from := now.Add(-span).Truncate(BucketSize).Add(BucketSize).Unix()
	bins := map[int]int{}
	for _, b := range sh.Buckets {
		if b.T < from || b.T > now.Unix() {
			continue
		}
		for k, c := range b.LatBins {
			bins[k] += c
		}
	}
	return latencyOf(bins)
}

// LatencyOfBucket is the p50 and p95 of one bucket's probes.
func LatencyOfBucket(b Bucket) api.LatencyWindow { return latencyOf(b.LatBins) }

func latencyOf(bins map[int]int) api.LatencyWindow {
	var w api.LatencyWindow
	keys := make([]int, 0, len(bins))
	for k, c := range bins {
		keys = append(keys, k)
		w.Samples += c
	}
	if w.Samples == 0 {
		return w
	}
	slices.Sort(keys)
	rank := func(p float64) *float64 {
		want := int(math.Ceil(p * float64(w.Samples)))
		seen := 0
		for _, k := range keys {
			seen += bins[k]
			if seen >= want {
				v := latBinUpper(k)
				return &v
			}
		}
		return nil
	}
	w.P50, w.P95 = rank(0.50), rank(0.95)
	return w
}
