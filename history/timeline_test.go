package history

import (
	"reflect"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
)

// TestCreditTimeline credits a gap from a page's timeline: each moment to
// the worst status of the official incidents of the service open then,
// operational elsewhere, all of it counted as the timeline's.
func TestCreditTimeline(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return base.Add(time.Duration(min) * time.Minute) }
	end := func(min int) *time.Time { e := at(min); return &e }
	incidents := []api.Incident{
		// minor from 10 to 40, critical from 20 to 30 inside it.
		{ID: "a", Service: "openai", Severity: api.Minor, StartedAt: at(10), EndedAt: end(40), Source: api.SourceOfficial},
		{ID: "b", Service: "openai", Severity: api.Critical, StartedAt: at(20), EndedAt: end(30), Source: api.SourceOfficial},
		// major, open, from 50 on: covers the rest of the gap.
		{ID: "c", Service: "openai", Severity: api.Major, StartedAt: at(50), Source: api.SourceOfficial},
		// Not this gap's: ended before it, another service's, our probe's.
		{ID: "d", Service: "openai", Severity: api.Critical, StartedAt: at(-30), EndedAt: end(0), Source: api.SourceOfficial},
		{ID: "e", Service: "anthropic", Severity: api.Critical, StartedAt: at(0), Source: api.SourceOfficial},
		{ID: "f", Service: "openai", Severity: api.Critical, StartedAt: at(0), Source: api.SourceProbe},
	}
	var sh ServiceHistory
	sh.CreditTimeline("openai", at(0), at(60), incidents)
	want := Bucket{T: base.Unix(), Operational: 20 * 60, Degraded: 20 * 60, Major: 10 * 60, Partial: 10 * 60, Timeline: 3600}
	if len(sh.Buckets) != 1 || !reflect.DeepEqual(sh.Buckets[0], want) {
		t.Fatalf("buckets = %+v, want [%+v]", sh.Buckets, want)
	}
	if len(sh.Recent) != 0 {
		t.Errorf("timeline spans among Recent (%v): Restate would restate the page's word", sh.Recent)
	}
	// An empty or reversed gap credits nothing.
	var empty ServiceHistory
	empty.CreditTimeline("openai", at(10), at(10), incidents)
	empty.CreditTimeline("openai", at(10), at(5), incidents)
	if len(empty.Buckets) != 0 {
		t.Errorf("empty gap credited %+v", empty.Buckets)
	}
}

// TestCoverageBreakdown splits coverage between our checks and the
// timeline, and the two add up to the coverage.
func TestCoverageBreakdown(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)
	var sh ServiceHistory
	// Checks every 30 minutes for the last 24 hours; the timeline bridges
	// the 15 minutes after each check's hold.
	for at := now.Add(-24 * time.Hour); !at.After(now); at = at.Add(30 * time.Minute) {
		if !sh.LastChecked.IsZero() {
			sh.CreditTimeline("openai", sh.LastChecked.Add(MaxHold), at, nil)
		}
		sh.Record(at, api.Operational, nil)
	}
	got := sh.CoverageBreakdown(now).H24
	if got.Checks != 0.5 || got.Timeline != 0.5 {
		t.Errorf("24h = %+v, want checks 0.5 and timeline 0.5", got)
	}
	if c := sh.Coverage(now).H24; c != 1 {
		t.Errorf("coverage = %v, want 1", c)
	}
	// The same checks without the timeline: half covered, by checks alone.
	var bare ServiceHistory
	for at := now.Add(-24 * time.Hour); !at.After(now); at = at.Add(30 * time.Minute) {
		bare.Record(at, api.Operational, nil)
	}
	if got := bare.CoverageBreakdown(now).H24; got.Checks != 0.5 || got.Timeline != 0 {
		t.Errorf("without the timeline: 24h = %+v, want checks 0.5 only", got)
	}
	// An hour credited in fractional-second pieces may add up to a hair
	// over 3600 s: float rounding, not corruption.
	pieces := Bucket{T: now.Truncate(BucketSize).Unix(), Operational: 3600.0000000000005, Timeline: 3600.0000000000005}
	if err := pieces.check(); err != nil {
		t.Errorf("a bucket a rounding error over its hour: %v", err)
	}
	// A bucket claiming more timeline time than it holds is corrupt.
	b := Bucket{T: now.Truncate(BucketSize).Unix(), Operational: 600, Timeline: 1200}
	if b.check() == nil {
		t.Error("a bucket with more timeline time than status time passed its check")
	}
}
