package history

import (
	"math"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
)

// Numbers that predict: what a service's retained history says about its
// next incident (also in docs/api.md, "Reliability").
//
//   - Incident duration, per severity: the p50 and p90 of how long the
//     service's ended official incidents lasted (endedAt − startedAt), with
//     the number of incidents behind them. Our own probe incidents are left
//     out: they measure our probe, not the provider's incident process.
//   - Acknowledgement: the outages our probes saw while the official page
//     declared none (OutageWatch), how long the page took to acknowledge
//     them (our first failed probe → the first check that read an
//     acknowledgement), and how long it stayed green meanwhile.
//
// A percentile is published only when MinBasis incidents or outages stand
// behind it; below, only the count is, and /check gives no
// expectedResolution. Percentiles are nearest-rank: each is one real
// incident's duration, never an interpolation.

// MinBasis is the fewest incidents (or outages) a percentile rests on
// before it is published: below five, a p90 is the longest of a handful.
const MinBasis = 5

// maxDetections bounds the detections kept per service, the oldest going
// first, like the incident cap.
const maxDetections = 1000

// ReliabilitySource says, in every reliability object, what the figures
// are computed from.
const ReliabilitySource = "aistatus's retained history of this service: its ended official incidents " +
	"(kept 90 days after they end) and the outages our own probes saw while the official page declared none."

// OutageWatch follows one outage that our probes see while the official
// page declares none: it starts at a failed probe of a check that read the
// page and found it green (no outage declared, no open incident in scope),
// and ends when the page acknowledges it or our probes recover.
type OutageWatch struct {
	// Since is the first failed probe.
	Since time.Time `json:"since"`
	// Confirmed is set once our own incident opened (api.ProbeIncidentAfter
	// failed probes): an outage, not a lost packet.
	Confirmed bool `json:"confirmed,omitempty"`
	// GreenSeconds is the time between consecutive checks that both read
	// the page green; GreenAt is the latest check that did, zero when the
	// latest check could not read it.
	GreenSeconds float64   `json:"greenSecs,omitempty"`
	GreenAt      time.Time `json:"greenAt,omitzero"`
}

// Detection is an outage our probes saw while the page declared none.
type Detection struct {
	Start time.Time `json:"start"`
	// AckAt is the first check that read the page acknowledging it (an
	// outage declared or an open incident in scope); nil when our probes
	// recovered first.
	AckAt *time.Time `json:"ackAt,omitempty"`
	// End is the acknowledgement or, unacknowledged, our recovery.
	End time.Time `json:"end"`
	// GreenSeconds is how long the page was read green meanwhile: a lower
	// bound, as the time between a green read and the next one that could
	// not read the page is not counted.
	GreenSeconds float64 `json:"greenSecs"`
}

// ComputeReliability computes a service's reliability from the retained
// incidents (all services', any order) and its detections.
func ComputeReliability(slug string, incidents []api.Incident, detections []Detection) api.Reliability {
	r := api.Reliability{Source: ReliabilitySource, MinBasis: MinBasis}
	var since time.Time
	earliest := func(t time.Time) {
		if since.IsZero() || t.Before(since) {
			since = t
		}
	}
	durations := map[api.Severity][]float64{}
	for _, inc := range incidents {
		if inc.Service != slug || inc.Source != api.SourceOfficial || inc.Open() || inc.EndedAt.Before(inc.StartedAt) {
			continue
		}
		durations[inc.Severity] = append(durations[inc.Severity], inc.EndedAt.Sub(inc.StartedAt).Seconds())
		earliest(inc.StartedAt)
	}
	r.IncidentDuration = api.DurationBySeverity{
		Minor: durationStats(durations[api.Minor]), Major: durationStats(durations[api.Major]), Critical: durationStats(durations[api.Critical]),
	}
	var lags, green []float64
	for _, d := range detections {
		earliest(d.Start)
		green = append(green, d.GreenSeconds)
		if d.AckAt != nil {
			lags = append(lags, d.AckAt.Sub(d.Start).Seconds())
		}
	}
	a := &r.Acknowledgement
	a.Outages, a.Acknowledged = len(detections), len(lags)
	a.LagP50Minutes, a.LagP90Minutes = percentileMinutes(lags, 50), percentileMinutes(lags, 90)
	a.GreenP50Minutes, a.GreenP90Minutes = percentileMinutes(green, 50), percentileMinutes(green, 90)
	if !since.IsZero() {
		s := since.UTC()
		r.Since = &s
	}
	return r
}

func durationStats(secs []float64) api.DurationStats {
	return api.DurationStats{Incidents: len(secs), P50Minutes: percentileMinutes(secs, 50), P90Minutes: percentileMinutes(secs, 90)}
}

// percentileMinutes is the nearest-rank p-th percentile of secs in whole
// minutes (rounded), nil below MinBasis values. It sorts secs.
func percentileMinutes(secs []float64, p int) *int {
	if len(secs) < MinBasis {
		return nil
	}
	slices.Sort(secs)
	rank := int(math.Ceil(float64(p) / 100 * float64(len(secs))))
	m := int(math.Round(secs[max(rank, 1)-1] / 60))
	return &m
}

// pruneDetections drops the detections that ended more than KeepIncidents
// ago, then the oldest beyond maxDetections, and any that no build writes
// (a hand-edited or corrupt history): ended before they began, acknowledged
// outside their span, green for longer than they lasted. Published, such a
// one would make a negative lag.
func (sh *ServiceHistory) pruneDetections(now time.Time) {
	kept := sh.Detections[:0]
	for _, d := range sh.Detections {
		if now.Sub(d.End) <= KeepIncidents && d.valid() {
			kept = append(kept, d)
		}
	}
	if n := len(kept) - maxDetections; n > 0 {
		kept = append(kept[:0], kept[n:]...)
	}
	clear(sh.Detections[len(kept):])
	sh.Detections = kept
}

func (d Detection) valid() bool {
	span := d.End.Sub(d.Start).Seconds()
	ackOK := d.AckAt == nil || (!d.AckAt.Before(d.Start) && !d.AckAt.After(d.End))
	return span >= 0 && ackOK && d.GreenSeconds >= 0 && d.GreenSeconds <= span
}
