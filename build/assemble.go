package build

import (
	"fmt"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// The rules that combine the official feed with our probe (also in the README).
const (
	// ProbeIncidentAfter consecutive failed probes, while the official feed
	// declares no outage, open our own incident: one lost packet is not an outage.
	ProbeIncidentAfter = 3
	// ProbeRecoveryAfter consecutive successful probes close it again.
	ProbeRecoveryAfter = 2
	// vantageMinProbes is the smallest number of probed services for which a
	// majority of failures is blamed on our own network.
	vantageMinProbes = 4
)

// Observation is what one cycle saw of one service, before any rule is applied.
type Observation struct {
	// Feed is the outcome of reading the official feed; Feed.Status is what
	// it declared when Feed.State is ok.
	Feed snapshot.FeedSource
	// Incidents are the official incidents the feed listed.
	Incidents []snapshot.Incident
	Probe     snapshot.ProbeSource
}

// ServiceState is a service's assembled state at the end of a cycle.
type ServiceState struct {
	Status  snapshot.Status
	Sources snapshot.Sources
}

// Assemble applies one cycle's observations to the history and returns each
// service's state. The rule:
//
//  1. If most probes failed at once (our vantage point is offline, not 26
//     services), every failed probe is discarded: recorded as no data, no
//     incident opened or advanced. This is logged as an error.
//  2. The official feed's declared status wins when the feed was read and
//     declared one.
//  3. Otherwise, ProbeIncidentAfter failed probes in a row are a major
//     outage (and our own incident).
//  4. A feed that fails after declaring a status keeps that status for up to
//     snapshot.MaxHold while the probe answers (or there is no probe), so a
//     feed that refuses every other request does not flap an official outage
//     to operational.
//  5. Otherwise the probe decides: a host that answered is operational; a
//     failed probe (fewer than ProbeIncidentAfter) keeps the previous status,
//     so one lost packet does not flap the status.
//  6. With neither feed nor probe, the status is unknown, never an outage.
func Assemble(h *snapshot.History, cat snapshot.Catalog, obs map[string]Observation, now time.Time, log zerolog.Logger) map[string]ServiceState {
	offline := discardFailedProbes(obs, log)
	incidents := newIncidentSet(h)
	states := make(map[string]ServiceState, len(cat.Services))
	for _, svc := range cat.Services {
		o := obs[svc.Slug]
		sh := h.Service(svc.Slug)
		status := decideStatus(o, sh, now, offline)
		if o.Feed.State == snapshot.FeedOK && o.Feed.Status.Valid() && o.Feed.Status != snapshot.Unknown {
			sh.LastFeedStatus, sh.LastFeedAt = o.Feed.Status, now
		}
		trackProbe(incidents, svc, sh, o, now)
		mergeOfficial(incidents, svc.Slug, o, now)

		latency := -1.0
		if o.Probe.LatencyMs != nil {
			latency = *o.Probe.LatencyMs
		}
		sh.Record(now, status, latency)
		states[svc.Slug] = ServiceState{Status: status, Sources: snapshot.Sources{Feed: o.Feed, Probe: o.Probe}}
	}
	snapshot.SortIncidents(h.Incidents)
	h.Prune(now)
	h.UpdatedAt = now
	return states
}

// discardFailedProbes implements rule 1 and reports whether it applied.
func discardFailedProbes(obs map[string]Observation, log zerolog.Logger) bool {
	probed, failed := 0, 0
	for _, o := range obs {
		switch o.Probe.State {
		case snapshot.ProbeOK:
			probed++
		case snapshot.ProbeFailed:
			probed++
			failed++
		}
	}
	if probed < vantageMinProbes || failed*2 <= probed {
		return false
	}
	log.Error().Int("failed", failed).Int("probed", probed).
		Msg("most probes failed at once: blaming our own network, recording them as unknown")
	for slug, o := range obs {
		if o.Probe.State == snapshot.ProbeFailed {
			o.Probe.State = snapshot.ProbeDiscarded
			obs[slug] = o
		}
	}
	return true
}

// decideStatus implements rules 2 to 6.
// offline is rule 1's verdict: then no earlier word is held either, since
// nothing was checked.
func decideStatus(o Observation, sh *snapshot.ServiceHistory, now time.Time, offline bool) snapshot.Status {
	if o.Feed.State == snapshot.FeedOK && o.Feed.Status.Valid() && o.Feed.Status != snapshot.Unknown {
		return o.Feed.Status
	}
	feedHeld := !offline && sh.LastFeedStatus != "" && now.Sub(sh.LastFeedAt) <= snapshot.MaxHold
	switch o.Probe.State {
	case snapshot.ProbeOK, snapshot.ProbeNone:
		if feedHeld {
			return sh.LastFeedStatus
		}
		if o.Probe.State == snapshot.ProbeOK {
			return snapshot.Operational
		}
	case snapshot.ProbeFailed:
		if sh.FailedProbes+1 >= ProbeIncidentAfter {
			return snapshot.MajorOutage
		}
		if sh.LastStatus != "" {
			return sh.LastStatus
		}
	}
	// Nothing this cycle (a discarded probe is no evidence either way).
	return snapshot.Unknown
}

// feedDeclaresOutage reports whether the official feed already explains a
// failing probe, in which case the official incident covers it.
func feedDeclaresOutage(o Observation) bool {
	if o.Feed.State != snapshot.FeedOK {
		return false
	}
	switch o.Feed.Status {
	case snapshot.PartialOutage, snapshot.MajorOutage, snapshot.Maintenance:
		return true
	}
	return false
}

// trackProbe counts failed and successful probes and opens or closes our own
// incident.
func trackProbe(incidents incidentSet, svc snapshot.Service, sh *snapshot.ServiceHistory, o Observation, now time.Time) {
	switch o.Probe.State {
	case snapshot.ProbeFailed:
		sh.OKProbes, sh.OKSince = 0, time.Time{}
		if feedDeclaresOutage(o) && sh.ProbeIncident == "" {
			sh.FailedProbes, sh.FailingSince = 0, time.Time{}
			return
		}
		if sh.FailedProbes == 0 {
			sh.FailingSince = now
		}
		sh.FailedProbes++
		if sh.FailedProbes >= ProbeIncidentAfter && sh.ProbeIncident == "" {
			inc := snapshot.Incident{
				ID:        fmt.Sprintf("%s-probe-%d", svc.Slug, sh.FailingSince.Unix()),
				Service:   svc.Slug,
				Headline:  fmt.Sprintf("%s API not reachable from aistatus probes", svc.Name),
				Severity:  snapshot.Major,
				StartedAt: sh.FailingSince,
				Status:    "ongoing",
				Source:    snapshot.SourceProbe,
				URL:       svc.StatusPage,
				UpdatedAt: now,
			}
			incidents.put(inc)
			sh.ProbeIncident = inc.ID
		}
	case snapshot.ProbeOK:
		sh.FailedProbes, sh.FailingSince = 0, time.Time{}
		if sh.OKProbes == 0 {
			sh.OKSince = now
		}
		sh.OKProbes++
		if sh.ProbeIncident != "" && sh.OKProbes >= ProbeRecoveryAfter {
			if inc := incidents.get(sh.ProbeIncident); inc != nil {
				ended := sh.OKSince
				inc.EndedAt, inc.Status, inc.UpdatedAt = &ended, "resolved", now
			}
			sh.ProbeIncident = ""
		}
	}
	// A discarded or absent probe changes nothing: no data is not evidence.
}

// mergeOfficial folds the feed's incidents into the retained ones. An open
// official incident that a successfully read feed no longer lists has ended.
func mergeOfficial(incidents incidentSet, slug string, o Observation, now time.Time) {
	if o.Feed.State != snapshot.FeedOK {
		return
	}
	listed := make(map[string]bool, len(o.Incidents))
	for _, inc := range o.Incidents {
		listed[inc.ID] = true
		incidents.put(inc)
	}
	for i := range incidents.h.Incidents {
		inc := &incidents.h.Incidents[i]
		if inc.Service == slug && inc.Source == snapshot.SourceOfficial && inc.Open() && !listed[inc.ID] {
			ended := now
			inc.EndedAt, inc.Status, inc.UpdatedAt = &ended, "resolved", now
		}
	}
}

// incidentSet indexes the retained incidents by id for one cycle.
type incidentSet struct {
	h     *snapshot.History
	index map[string]int
}

func newIncidentSet(h *snapshot.History) incidentSet {
	s := incidentSet{h: h, index: make(map[string]int, len(h.Incidents))}
	for i, inc := range h.Incidents {
		s.index[inc.ID] = i
	}
	return s
}

// get returns the incident with the given id, or nil.
func (s incidentSet) get(id string) *snapshot.Incident {
	if i, ok := s.index[id]; ok {
		return &s.h.Incidents[i]
	}
	return nil
}

// put adds inc, or replaces the incident with the same id.
func (s incidentSet) put(inc snapshot.Incident) {
	if i, ok := s.index[inc.ID]; ok {
		s.h.Incidents[i] = inc
		return
	}
	s.index[inc.ID] = len(s.h.Incidents)
	s.h.Incidents = append(s.h.Incidents, inc)
}
