package build

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// observed is one cycle's observation of a service whose page is read (or
// not) and whose probe answers (or not).
func observed(page api.Status, timeline *feed.Timeline, probeOK bool, incidents ...api.Incident) Observation {
	o := Observation{Feed: api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedOK, Status: page},
		Timeline: timeline, Incidents: incidents, Probe: api.ProbeSource{State: api.ProbeOK}}
	if page == "" {
		o.Feed.State, o.Feed.Status, o.Timeline, o.Incidents = api.FeedError, "", nil, nil
	}
	if !probeOK {
		o.Probe = api.ProbeSource{State: api.ProbeFailed, Error: "timeout"}
	}
	return o
}

// assembleOpenAI runs Assemble over the default catalog with an observation
// of openai alone (the other services observe nothing).
func assembleOpenAI(t *testing.T, h *history.History, at time.Time, o Observation) {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	Assemble(h, cat, map[string]Observation{"openai": o}, at, zerolog.Nop())
}

// TestTimelineBridges checks each condition of the rule under which the
// page's timeline credits the gap between two checks (history.ServiceHistory.CreditTimeline).
func TestTimelineBridges(t *testing.T) {
	t.Parallel()
	op, deg, partial, maint := api.Operational, api.Degraded, api.PartialOutage, api.Maintenance
	complete := &feed.Timeline{}
	open := api.Incident{ID: "openai-i1", Service: "openai", Headline: "Elevated errors", Severity: api.Major,
		StartedAt: t0.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: t0}
	for _, tt := range []struct {
		name         string
		first, later Observation
		gap          time.Duration
		want         time.Duration // credited from the timeline
	}{
		{"read with its timeline on both sides", observed(op, complete, true), observed(op, complete, true), 40 * time.Minute, 25 * time.Minute},
		{"a gap within the hold", observed(op, complete, true), observed(op, complete, true), 10 * time.Minute, 0},
		{"the longest gap", observed(op, complete, true), observed(op, complete, true), history.MaxTimelineGap, history.MaxTimelineGap - history.MaxHold},
		{"longer than MaxTimelineGap", observed(op, complete, true), observed(op, complete, true), history.MaxTimelineGap + time.Minute, 0},
		{"no timeline before", observed(op, nil, true), observed(op, complete, true), 40 * time.Minute, 0},
		{"no timeline after", observed(op, complete, true), observed(op, nil, true), 40 * time.Minute, 0},
		{"page unreadable before", observed("", nil, true), observed(op, complete, true), 40 * time.Minute, 0},
		{"page unreadable after", observed(op, complete, true), observed("", nil, true), 40 * time.Minute, 0},
		{"list cut after the gap began", observed(op, complete, true), observed(op, &feed.Timeline{Since: t0.Add(20 * time.Minute)}, true), 40 * time.Minute, 0},
		{"list cut before the gap began", observed(op, complete, true), observed(op, &feed.Timeline{Since: t0.Add(10 * time.Minute)}, true), 40 * time.Minute, 25 * time.Minute},
		{"a failed probe pending", observed(op, complete, false), observed(op, complete, true), 40 * time.Minute, 0},
		// Rule 5: the page's word at both checks agrees with its timeline.
		{"an incident explains both ends", observed(partial, complete, true, open), observed(partial, complete, true, open), 40 * time.Minute, 25 * time.Minute},
		{"degraded by hand, no incident", observed(deg, complete, true), observed(deg, complete, true), 40 * time.Minute, 0},
		{"operational beside an open incident", observed(op, complete, true, open), observed(op, complete, true, open), 40 * time.Minute, 0},
		{"maintenance before", observed(maint, complete, true), observed(op, complete, true), 40 * time.Minute, 0},
		{"maintenance after", observed(op, complete, true), observed(maint, complete, true), 40 * time.Minute, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := history.New()
			assembleOpenAI(t, h, t0, tt.first)
			assembleOpenAI(t, h, t0.Add(tt.gap), tt.later)
			var timeline float64
			for _, b := range h.Services["openai"].Buckets {
				timeline += b.Timeline
			}
			if got := time.Duration(timeline) * time.Second; got != tt.want {
				t.Errorf("timeline credited %s, want %s", got, tt.want)
			}
		})
	}
}

// TestTimelineNotAfterOurIncident: while our own incident is open the page's
// word is not credited for time nobody checked, even once it is read again.
func TestTimelineNotAfterOurIncident(t *testing.T) {
	t.Parallel()
	op, complete := api.Operational, &feed.Timeline{}
	h := history.New()
	at := t0
	for range api.ProbeIncidentAfter {
		assembleOpenAI(t, h, at, observed(op, complete, false))
		at = at.Add(time.Minute)
	}
	if h.Services["openai"].ProbeIncident == "" {
		t.Fatal("no incident of ours opened")
	}
	assembleOpenAI(t, h, at.Add(time.Hour), observed(op, complete, true))
	for _, b := range h.Services["openai"].Buckets {
		if b.Timeline != 0 {
			t.Fatalf("timeline credited %v s after our incident", b.Timeline)
		}
	}
}

// TestWatchOutage follows outages our probes see while the page is green:
// the acknowledgement lag and green minutes recorded, and what is not an
// outage forgotten.
func TestWatchOutage(t *testing.T) {
	t.Parallel()
	op, major := api.Operational, api.MajorOutage
	postedIncident := api.Incident{ID: "openai-x1", Service: "openai", Headline: "Elevated errors", Severity: api.Major,
		StartedAt: t0, Status: "investigating", Source: api.SourceOfficial, UpdatedAt: t0}
	ack := func(min int) *time.Time { t := t0.Add(time.Duration(min) * 5 * time.Minute); return &t }
	for _, tt := range []struct {
		name  string
		steps []Observation // one every 5 minutes from t0
		want  []history.Detection
	}{
		{
			name:  "acknowledged by an outage declared after our incident opened",
			steps: []Observation{observed(op, nil, true), observed(op, nil, false), observed(op, nil, false), observed(op, nil, false), observed(major, nil, false)},
			want:  []history.Detection{{Start: t0.Add(5 * time.Minute), AckAt: ack(4), End: *ack(4), GreenSeconds: 600}},
		},
		{
			name: "acknowledged by an incident posted while the components stay green",
			steps: []Observation{observed(op, nil, true), observed(op, nil, false), observed(op, nil, false),
				observed(op, nil, false, postedIncident)},
			want: []history.Detection{{Start: t0.Add(5 * time.Minute), AckAt: ack(3), End: *ack(3), GreenSeconds: 300}},
		},
		{
			name: "never acknowledged: our probes recovered first",
			steps: []Observation{observed(op, nil, true), observed(op, nil, false), observed(op, nil, false), observed(op, nil, false),
				observed(op, nil, true), observed(op, nil, true)},
			want: []history.Detection{{Start: t0.Add(5 * time.Minute), End: t0.Add(25 * time.Minute), GreenSeconds: 1200}},
		},
		{
			name: "the page unreadable for a while: no green time across it",
			steps: []Observation{observed(op, nil, true), observed(op, nil, false), observed("", nil, false), observed("", nil, false),
				observed(op, nil, false), observed(major, nil, false)},
			want: []history.Detection{{Start: t0.Add(5 * time.Minute), AckAt: ack(5), End: *ack(5), GreenSeconds: 0}},
		},
		{
			name:  "a lost packet is no outage",
			steps: []Observation{observed(op, nil, true), observed(op, nil, false), observed(op, nil, true), observed(op, nil, true)},
		},
		{
			name:  "the page already declared the outage",
			steps: []Observation{observed(major, nil, true), observed(major, nil, false), observed(major, nil, false), observed(op, nil, true)},
		},
		{
			name: "the page unreadable when it began",
			steps: []Observation{observed(op, nil, true), observed("", nil, false), observed("", nil, false), observed("", nil, false),
				observed(major, nil, false)},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := history.New()
			for i, o := range tt.steps {
				assembleOpenAI(t, h, t0.Add(time.Duration(i)*5*time.Minute), o)
			}
			got := h.Services["openai"].Detections
			if len(got) != len(tt.want) {
				t.Fatalf("detections = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || g.GreenSeconds != w.GreenSeconds ||
					(g.AckAt == nil) != (w.AckAt == nil) || (g.AckAt != nil && !g.AckAt.Equal(*w.AckAt)) {
					t.Errorf("detection %d = %+v (ack %v), want %+v (ack %v)", i, g, g.AckAt, w, w.AckAt)
				}
			}
		})
	}
}
