package history

import (
	"time"

	"github.com/aistatus/aistatus/api"
)

// WatchOutage follows the outages our probes see while the official page
// declares none (OutageWatch), after CountProbe has counted this check's
// probe, and records each that ends as a Detection: the acknowledgement
// lag and green minutes of the service's reliability (predict.go).
//
// A watch starts at the first failed probe of a run, in a check that read
// the page green. It ends when a check reads the page acknowledging the
// outage, or when our probes recover first; a run of failures that neither
// opened our incident nor was acknowledged was a lost packet, not an
// outage, and is forgotten. Discarded probes (our own network) change
// nothing.
func (sh *ServiceHistory) WatchOutage(r Reading, now time.Time) {
	read := r.Feed.State == api.FeedOK
	acknowledged := read && pageAcknowledges(r)
	w := sh.Outage
	if w == nil {
		if r.Probe.State == api.ProbeFailed && sh.FailedProbes == 1 && read && !acknowledged {
			sh.Outage = &OutageWatch{Since: now, GreenAt: now}
		}
		return
	}
	if sh.ProbeIncident != "" {
		w.Confirmed = true
	}
	switch {
	case acknowledged:
		at := now
		sh.Detections = append(sh.Detections, Detection{Start: w.Since, AckAt: &at, End: now, GreenSeconds: w.GreenSeconds})
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
	if r.Probe.State == api.ProbeOK && sh.FailedProbes == 0 && sh.ProbeIncident == "" {
		if w.Confirmed {
			sh.Detections = append(sh.Detections, Detection{Start: w.Since, End: now, GreenSeconds: w.GreenSeconds})
		}
		sh.Outage = nil
	}
}

// pageAcknowledges reports whether a read page acknowledges an outage: it
// declares one, or lists an open incident in the service's scope.
func pageAcknowledges(r Reading) bool {
	if r.DeclaresOutage() {
		return true
	}
	for _, inc := range r.Incidents {
		if inc.Open() {
			return true
		}
	}
	return false
}
