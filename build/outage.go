package build

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
)

// watchOutage follows the outages our probes see while the official page
// declares none (history.OutageWatch), after trackProbe has counted this
// cycle's probe, and records each that ends as a history.Detection: the
// acknowledgement lag and green minutes of the service's reliability.
//
// A watch starts at the first failed probe of a run, in a check that read
// the page green. It ends when a check reads the page acknowledging the
// outage, or when our probes recover first; a run of failures that neither
// opened our incident nor was acknowledged was a lost packet, not an
// outage, and is forgotten. Discarded probes (our own network) change
// nothing.
func watchOutage(sh *history.ServiceHistory, o Observation, now time.Time) {
	read := o.Feed.State == api.FeedOK
	acknowledged := read && pageAcknowledges(o)
	w := sh.Outage
	if w == nil {
		if o.Probe.State == api.ProbeFailed && sh.FailedProbes == 1 && read && !acknowledged {
			sh.Outage = &history.OutageWatch{Since: now, GreenAt: now}
		}
		return
	}
	if sh.ProbeIncident != "" {
		w.Confirmed = true
	}
	switch {
	case acknowledged:
		at := now
		sh.Detections = append(sh.Detections, history.Detection{Start: w.Since, AckAt: &at, End: now, GreenSeconds: w.GreenSeconds})
		sh.Outage = nil
		return
	case read:
		if !w.GreenAt.IsZero() {
			w.GreenSeconds += now.Sub(w.GreenAt).Seconds()
		}
		w.GreenAt = now
	default:
		w.GreenAt = time.Time{} // unreadable: the page's color in between is unknown
	}
	if o.Probe.State == api.ProbeOK && sh.FailedProbes == 0 && sh.ProbeIncident == "" {
		if w.Confirmed {
			sh.Detections = append(sh.Detections, history.Detection{Start: w.Since, End: now, GreenSeconds: w.GreenSeconds})
		}
		sh.Outage = nil
	}
}

// pageAcknowledges reports whether a read page acknowledges an outage: it
// declares one, or lists an open incident in the service's scope.
func pageAcknowledges(o Observation) bool {
	if feedDeclaresOutage(o) {
		return true
	}
	for _, inc := range o.Incidents {
		if inc.Open() {
			return true
		}
	}
	return false
}
