package build

import (
	"fmt"
	"slices"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// SourceAlarmAfter is how long an official source may fail before it is
// logged at error level every cycle: a source that moved, walled itself off
// or changed shape needs a person, not a retry.
const SourceAlarmAfter = time.Hour

// Observation is what one cycle saw of one service, before any rule is applied.
type Observation struct {
	// Feed is the outcome of reading the official feed; Feed.Status is what
	// it declared when Feed.State is ok.
	Feed api.FeedSource
	// Incidents are the official incidents the feed listed.
	Incidents []api.Incident
	// Components are the page's components, marked in or out of scope.
	Components []api.Component
	// Tags are the tags of the feed's items, marked in or out of scope
	// (feed.Result.Tags).
	Tags  []feed.Tag
	Probe api.ProbeSource
	// Surfaces are the service's other surfaces as the page declared them
	// this cycle, in catalog order; nil without a page to read.
	Surfaces []feed.SurfaceResult
	// Completions are this cycle's measured completions, by model id; nil
	// when none was sent (no key, or not due).
	Completions map[string]api.CompletionSample
	// Timeline is set when Incidents are the page's incident timeline
	// (feed.Result.Timeline), which may bridge the gap since the last check.
	Timeline *feed.Timeline
	// Vantages are the other vantage points' results for the API host
	// (readVantages); nil when the build read none.
	Vantages *VantageView
}

// reading is what the status and incident rules of history weigh of o.
func (o Observation) reading() history.Reading {
	return history.Reading{Feed: o.Feed, Incidents: o.Incidents, Probe: o.Probe}
}

// timelineSince is where the incident timeline read this cycle reaches
// back to, for history's timeline rule; nil when none was read.
func (o Observation) timelineSince() *time.Time {
	if o.Feed.State != api.FeedOK || o.Timeline == nil {
		return nil
	}
	return &o.Timeline.Since
}

// ServiceState is a service's assembled state at the end of a cycle. Basis
// is what Status rests on; a state made without one (not by Assemble) is
// rendered with api.BasisNone.
type ServiceState struct {
	Status     api.Status
	Basis      api.Basis
	Sources    api.Sources
	Components []api.Component
	// Surfaces are the service's other surfaces this cycle (see
	// Observation.Surfaces): the page's word alone, never held.
	Surfaces []feed.SurfaceResult
	// CheckedAt is when this cycle read the page.
	CheckedAt time.Time
}

// Assemble applies one cycle's observations to the history and returns each
// service's state. The rules (docs/api.md) are history's, in the order
// they apply:
//
//  1. history.OurNetworkDown: if most probes failed at once (our vantage
//     point is offline, not that many services), every failed probe is
//     discarded: recorded as no data, no incident opened or advanced.
//     This is logged as an error. Then the regional rule (history.ReadVantages),
//     when other vantage points reported: a probe failing from the builder
//     while at least two others reach the host is set aside like those of
//     rule 1 (a regional or path problem, never an outage), and a host
//     failing from every vantage counts each other vantage as one more
//     failed probe.
//
// Then, for each service, history.ServiceHistory.CountProbe counts its
// probe and opens or closes our own incident, DecideStatus applies rules 2
// to 6 (the page's word, overruled only by our failing probes; never
// operational on reachability alone), ApplyMeasured folds in our measured
// completions, history.IncidentIndex.MergeOfficial folds in the page's
// incidents, and TimelineBridges with CreditTimelineGap credit the gap
// since the last check from the page's timeline; what changed goes in
// the change log. This keeps the rule for our own network: with no
// internet, the probes are discarded and no page is read, and every
// service reads unknown, never an outage and never operational.
func Assemble(h *history.History, cat catalog.Catalog, obs map[string]Observation, now time.Time, log zerolog.Logger) map[string]ServiceState {
	offline := discardFailedProbes(obs, log)
	vantages := make(map[string]*api.Vantages, len(obs))
	for slug, o := range obs {
		if v := readVantages(&o); v != nil {
			vantages[slug] = v
			obs[slug] = o
		}
	}
	h.StartChangeLog(now)
	before := history.IncidentsByID(h.Incidents)
	incidents := h.IndexIncidents()
	states := make(map[string]ServiceState, len(cat.Services))
	for _, svc := range cat.Services {
		o := obs[svc.Slug]
		sh := h.Track(svc.Slug)
		bridge, lastWord := sh.TimelineBridges(o.timelineSince(), now, offline), sh.LastFeedStatus
		trackFeed(sh, svc, &o, now, log)
		r := o.reading()
		opened := sh.CountProbe(incidents, svc, r, now)
		sh.WatchOutage(r, now)
		status, basis, disagreement := sh.DecideStatus(r, incidents, now, offline)
		recordCompletions(sh, o, offline)
		status, basis, disagreement = sh.ApplyMeasured(svc, r, now, status, basis, disagreement)
		if official, ok := r.Declared(); ok {
			sh.LastFeedStatus, sh.LastFeedAt = official, now
		}
		if fresh, added := incidents.MergeOfficial(svc.Slug, r, now); added < fresh {
			log.Warn().Str("service", svc.Slug).Int("new", fresh).Int("added", added).
				Msg("feed listed more new incidents than one cycle adds: the newest were added, the rest wait for later cycles")
		}
		if bridge {
			h.CreditTimelineGap(sh, svc.Slug, lastWord, r, now)
		}
		if o.Feed.State == api.FeedOK && o.Timeline != nil {
			sh.TimelineAt = now
		}

		// The change log records the transition as the cycle decides it,
		// before any document or the situation exists: it is the history
		// of the statuses they are made from, not a reading of them.
		if prev := sh.LastStatus; prev != status && (prev == "" || now.After(sh.LastChecked)) {
			h.AddStatusChange(api.Change{Type: api.ChangeStatus, Service: svc.Slug, Time: now, OldStatus: prev, NewStatus: status})
		}
		sh.Record(now, status, o.Probe.LatencyMs)
		recordSurfaces(h, svc.Slug, sh, o.Surfaces, func(id string) bool { return incidents.Get(id) != nil }, offline, now)
		if opened && status == api.MajorOutage {
			// Our incident starts at the first failed probe; so does the
			// downtime, though the first two left the status as it was.
			sh.Restate(sh.FailingSince, api.MajorOutage)
		}
		states[svc.Slug] = ServiceState{
			Status:     status,
			Basis:      basis,
			Sources:    api.Sources{Feed: o.Feed, Probe: o.Probe, Disagreement: disagreement, Vantages: vantages[svc.Slug]},
			Components: o.Components,
			Surfaces:   o.Surfaces,
			CheckedAt:  now,
		}
	}
	api.SortIncidents(h.Incidents)
	// What this cycle did to the incidents, oldest first.
	h.LogIncidents(h.Incidents, before, "", now)
	// The daily rows are taken before the buckets they come from are pruned.
	h.RollUp(now)
	h.Prune(now)
	h.UpdatedAt = now
	return states
}

// discardFailedProbes applies rule 1 (history.OurNetworkDown) and reports
// whether it applied: every failed probe is then discarded.
func discardFailedProbes(obs map[string]Observation, log zerolog.Logger) bool {
	probes := make([]api.ProbeSource, 0, len(obs))
	for _, o := range obs {
		probes = append(probes, o.Probe)
	}
	down, failed, probed := history.OurNetworkDown(probes)
	if !down {
		return false
	}
	log.Error().Int("failed", failed).Int("probed", probed).
		Msg("most probes failed at once: blaming our own network, recording them as unknown")
	for slug, o := range obs {
		if o.Probe.State == api.ProbeFailed {
			o.Probe.State = api.ProbeDiscarded
			obs[slug] = o
		}
	}
	return true
}

// trackFeed keeps the health of the official source: the last good read,
// the run of failures, changes in the roster of in-scope components and
// the components in no place (trackUnplaced). It fills the health fields
// of o.Feed from the history.
func trackFeed(sh *history.ServiceHistory, svc catalog.Service, o *Observation, now time.Time, log zerolog.Logger) {
	fh := &sh.Feed
	switch o.Feed.State {
	case api.FeedOK:
		fh.LastOKAt, fh.Failures, fh.FailingSince, fh.LastFailure = now, 0, time.Time{}, ""
		trackRoster(fh, svc, o.Components, now, log)
		trackUnplaced(fh, svc, *o, now, log)
	case api.FeedError:
		if fh.Failures == 0 {
			fh.FailingSince = now
		}
		fh.Failures++
		fh.LastFailure = o.Feed.Failure
		if now.Sub(fh.FailingSince) >= SourceAlarmAfter {
			log.Error().Str("service", svc.Slug).Str("url", svc.Feed.URL).Str("failure", string(fh.LastFailure)).
				Int("failures", fh.Failures).Time("since", fh.FailingSince).
				Msg("official source failing for over an hour: it may have moved or changed shape")
		}
	default:
		return // no source to keep the health of
	}
	o.Feed.LastOKAt = timePtr(fh.LastOKAt)
	o.Feed.ConsecutiveFailures = fh.Failures
	o.Feed.FailingSince = timePtr(fh.FailingSince)
	o.Feed.RosterChangedAt = timePtr(fh.RosterChangedAt)
	o.Feed.RosterAdded, o.Feed.RosterRemoved = fh.RosterAdded, fh.RosterRemoved
	o.Feed.Unplaced = fh.Unplaced
}

// trackRoster notices a change in the set of in-scope components: a
// component added to or removed from the API on the page, or ids that
// rotated, which may call for a change of scope.
func trackRoster(fh *history.FeedHealth, svc catalog.Service, comps []api.Component, now time.Time, log zerolog.Logger) {
	if comps == nil {
		return // a format without components
	}
	var roster []string
	for _, c := range comps {
		if c.InScope {
			roster = append(roster, fmt.Sprintf("%s (%s)", c.Name, c.ID))
		}
	}
	slices.Sort(roster)
	if fh.Roster != nil && !slices.Equal(roster, fh.Roster) {
		fh.RosterChangedAt = now
		fh.RosterAdded, fh.RosterRemoved = difference(roster, fh.Roster), difference(fh.Roster, roster)
		log.Warn().Str("service", svc.Slug).Strs("added", fh.RosterAdded).Strs("removed", fh.RosterRemoved).
			Msg("the components in scope changed on the official page")
	}
	fh.Roster = roster
}

// difference is the elements of a not in b.
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
