package history

import (
	"math"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
)

// Honest uptime between sparse checks.
//
// A check's status holds for at most MaxHold; a scheduler that runs builds
// 20 minutes apart (GitHub Actions' schedule) would leave most of every
// window without data. Between two of our checks, the official page's own
// incident timeline — each incident's start, end and impact, for the
// service's scope — says what the page declared all along, and is credited
// instead, under a rule that invents nothing (also in docs/api.md, "Uptime
// between checks"):
//
//  1. Only the part of a gap beyond MaxHold is credited from the timeline:
//     the check's own status holds for its MaxHold first, as always.
//  2. The page's feed was read with its incident timeline at both checks
//     around the gap (a page that lists only its open incidents proves
//     nothing about a past hour, nor does one that could not be read), and
//     the later read's list reaches back to the gap's start (a list cut at
//     its length could have dropped an incident from within the gap).
//  3. The gap is at most MaxTimelineGap.
//  4. Our probes contested nothing at the gap's start: no failed probe was
//     pending and no incident of ours was open. While they disagree with
//     the page, the page's word is not credited for time nobody checked.
//  5. The status the page declared at both checks agrees with its timeline
//     then (TimelineExplains): operational exactly when no incident was
//     open, never maintenance. A status the page set without an incident
//     (a component marked degraded by hand, a maintenance, which the feeds
//     leave out of their incident lists) is one the timeline cannot show.
//  6. Each moment of the gap is credited to the worst status the official
//     incidents open then stand for (IncidentStatus), and operational
//     where none was open.
//
// The time credited this way is counted per bucket (Bucket.Timeline), so
// that every uptime window says how much of it came from our checks and how
// much from the page's timeline (api.CoverageBreakdown).

// MaxTimelineGap is the longest gap between two checks that the page's
// timeline may bridge: GitHub's schedule has been seen throttled to runs
// about two hours apart; beyond six hours the generator was down, and its
// uptime says so, rather than resting on a page alone for most of a day.
const MaxTimelineGap = 6 * time.Hour

// IncidentStatus is the status an official incident of severity s stands
// for in the page's timeline: minor → degraded, major → partial outage,
// critical → major outage (Statuspage's impact levels, whose names these
// severities keep).
func IncidentStatus(s api.Severity) api.Status {
	switch s {
	case api.Critical:
		return api.MajorOutage
	case api.Major:
		return api.PartialOutage
	}
	return api.Degraded
}

// CreditTimeline credits [from, to) from the page's incident timeline: each
// moment to the worst status of the official incidents of incidents that
// were open then, operational where none was. The caller has checked the
// rule above; incidents may hold other services' and our probe's, which
// are skipped, so the retained list can be passed whole.
func (sh *ServiceHistory) CreditTimeline(slug string, from, to time.Time, incidents []api.Incident) {
	if !from.Before(to) {
		return
	}
	var open []api.Incident
	cuts := []time.Time{from, to}
	for _, inc := range incidents {
		if inc.Service != slug || inc.Source != api.SourceOfficial || !inc.StartedAt.Before(to) ||
			(inc.EndedAt != nil && !inc.EndedAt.After(from)) {
			continue
		}
		open = append(open, inc)
		if inc.StartedAt.After(from) {
			cuts = append(cuts, inc.StartedAt)
		}
		if inc.EndedAt != nil && inc.EndedAt.Before(to) {
			cuts = append(cuts, *inc.EndedAt)
		}
	}
	slices.SortFunc(cuts, time.Time.Compare)
	cuts = slices.CompactFunc(cuts, time.Time.Equal)
	for i := 0; i+1 < len(cuts); i++ {
		// No incident starts or ends inside [cuts[i], cuts[i+1]): its
		// status is the one at its start.
		sh.creditTimeline(cuts[i], cuts[i+1], TimelineStatus(slug, cuts[i], open))
	}
}

// TimelineStatus is the status the page's timeline gives slug at t: the
// worst IncidentStatus of its official incidents open then (started at or
// before t, not ended by t), operational when none was.
func TimelineStatus(slug string, t time.Time, incidents []api.Incident) api.Status {
	status := api.Operational
	for _, inc := range incidents {
		if inc.Service == slug && inc.Source == api.SourceOfficial && !inc.StartedAt.After(t) && (inc.EndedAt == nil || inc.EndedAt.After(t)) {
			status = api.Worse(status, IncidentStatus(inc.Severity))
		}
	}
	return status
}

// TimelineExplains reports whether the status a page declared at a check
// agrees with its timeline then (rule 5): operational exactly when the
// timeline is, and a status the timeline can give at all (not maintenance,
// not unknown, not "" for a page that declared nothing).
func TimelineExplains(declared, timeline api.Status) bool {
	switch declared {
	case api.Operational, api.Degraded, api.PartialOutage, api.MajorOutage:
		return (declared == api.Operational) == (timeline == api.Operational)
	}
	return false
}

// creditTimeline credits [from, to) to s, split across buckets, and counts
// it as the page timeline's.
func (sh *ServiceHistory) creditTimeline(from, to time.Time, s api.Status) {
	sh.eachBucket(from, to, func(b *Bucket, secs float64) {
		*b.seconds(s) += secs
		b.Timeline += secs
	})
}

// CoverageBreakdown computes the coverage of the three uptime windows
// ending at now by source, each share rounded down to three decimals.
func (sh *ServiceHistory) CoverageBreakdown(now time.Time) api.CoverageBreakdown {
	split := func(d time.Duration) api.CoverageSources {
		t := sh.window(now.Add(-d), now)
		covered := t.observed() + t.Maintenance
		timeline := min(t.Timeline, covered)
		floor := func(secs float64) float64 { return math.Min(1, math.Floor(secs/d.Seconds()*1000+1e-6)/1000) }
		return api.CoverageSources{Checks: floor(covered - timeline), Timeline: floor(timeline)}
	}
	return api.CoverageBreakdown{H24: split(24 * time.Hour), D7: split(7 * 24 * time.Hour), D30: split(30 * 24 * time.Hour)}
}

// TimelineBridges reports whether the official page's incident timeline
// may credit the gap between the service's last check and this one beyond
// MaxHold: the rule of CreditTimeline, checked before this cycle's probe
// is counted (rule 4 is about the gap's start). timelineSince is the
// start of the oldest incident of the timeline read this cycle (see
// feed.Timeline), nil when no timeline was read; offline is rule 1: with
// our own network down nothing was read.
func (sh *ServiceHistory) TimelineBridges(timelineSince *time.Time, now time.Time, offline bool) bool {
	gapStart := sh.LastChecked.Add(MaxHold)
	switch {
	case !sh.LastFeedAt.Equal(sh.LastChecked):
		return false // rule 5: the page declared nothing at the last check
	case offline, sh.LastChecked.IsZero(), !now.After(gapStart), now.Sub(sh.LastChecked) > MaxTimelineGap:
		return false // rules 1 and 3
	case !sh.TimelineAt.Equal(sh.LastChecked), timelineSince == nil:
		return false // rule 2: the timeline read on both sides
	case timelineSince.After(gapStart):
		return false // rule 2: the list does not reach back to the gap
	case sh.FailedProbes > 0, sh.ProbeIncident != "":
		return false // rule 4: our probes contested the page
	}
	return true
}

// CreditTimelineGap credits the gap since the last check from the page's
// timeline, once TimelineBridges has held, when the status the page
// declared at both checks agrees with the timeline (rule 5). It runs after
// this cycle's incidents are merged into h and before Record moves
// LastChecked; before is what the page declared at the last check.
func (h *History) CreditTimelineGap(sh *ServiceHistory, slug string, before api.Status, r Reading, now time.Time) {
	declared, _ := r.Declared()
	if !TimelineExplains(before, TimelineStatus(slug, sh.LastChecked, h.Incidents)) ||
		!TimelineExplains(declared, TimelineStatus(slug, now, h.Incidents)) {
		return
	}
	sh.CreditTimeline(slug, sh.LastChecked.Add(MaxHold), now, h.Incidents)
}
