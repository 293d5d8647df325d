package build

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// timelineBridges reports whether the official page's incident timeline may
// credit the gap between the service's last check and this one beyond
// MaxHold: the rule of history.ServiceHistory.CreditTimeline, checked before this cycle's
// probe is counted (rule 4 is about the gap's start). offline is
// Assemble's rule 1: with our own network down nothing was read.
func timelineBridges(sh *history.ServiceHistory, o Observation, now time.Time, offline bool) bool {
	gapStart := sh.LastChecked.Add(history.MaxHold)
	switch {
	case !sh.LastFeedAt.Equal(sh.LastChecked):
		return false // rule 5: the page declared nothing at the last check
	case offline, sh.LastChecked.IsZero(), !now.After(gapStart), now.Sub(sh.LastChecked) > history.MaxTimelineGap:
		return false // rules 1 and 3
	case !sh.TimelineAt.Equal(sh.LastChecked), o.Feed.State != api.FeedOK, o.Timeline == nil:
		return false // rule 2: the timeline read on both sides
	case o.Timeline.Since.After(gapStart):
		return false // rule 2: the list does not reach back to the gap
	case sh.FailedProbes > 0, sh.ProbeIncident != "":
		return false // rule 4: our probes contested the page
	}
	return true
}

// creditTimeline credits the gap since the last check from the page's
// timeline, once timelineBridges has held, when the status the page
// declared at both checks agrees with the timeline (rule 5). It runs after
// this cycle's incidents are merged into h and before Record moves
// LastChecked; before is what the page declared at the last check.
func creditTimeline(h *history.History, sh *history.ServiceHistory, slug string, before api.Status, o history.Reading, now time.Time) {
	declared, _ := o.Declared()
	if !history.TimelineExplains(before, history.TimelineStatus(slug, sh.LastChecked, h.Incidents)) ||
		!history.TimelineExplains(declared, history.TimelineStatus(slug, now, h.Incidents)) {
		return
	}
	sh.CreditTimeline(slug, sh.LastChecked.Add(history.MaxHold), now, h.Incidents)
}
