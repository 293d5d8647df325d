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

// The rules that combine the official feed with our probe (also in docs/api.md).
const (
	// ProbeRecoveryAfter consecutive successful probes close it again.
	ProbeRecoveryAfter = 2
	// vantageMinProbes is the smallest number of probed services for which a
	// majority of failures is blamed on our own network.
	vantageMinProbes = 4
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
	Probe      api.ProbeSource
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

// declared is the status the official feed declared this cycle, if it was
// read and declared one ("" and false otherwise).
func (o Observation) declared() (api.Status, bool) {
	if o.Feed.State == api.FeedOK && o.Feed.Status.Valid() && o.Feed.Status != api.Unknown {
		return o.Feed.Status, true
	}
	return "", false
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
// service's state. The rule:
//
//  1. If most probes failed at once (our vantage point is offline, not
//     that many services), every failed probe is discarded: recorded as no
//     data, no incident opened or advanced. This is logged as an error.
//     Then the regional rule (readVantages), when other vantage points
//     reported: a probe failing from the builder while others reach the
//     host is set aside like those of rule 1 (a regional or path problem,
//     never an outage), and a host failing from every vantage counts each
//     other vantage as one more failed probe.
//  2. The official feed's declared status wins when the feed was read and
//     declared one — unless our own measurement contradicts it: when
//     api.ProbeIncidentAfter probes in a row have failed while the page says
//     operational or degraded, the status is a major outage and the
//     disagreement is published; while our own incident is still open
//     (until the probe has answered ProbeRecoveryAfter times in a row,
//     even if it fails again in between), an "operational" page reads
//     degraded. We never publish "operational" beside an open incident of
//     ours.
//  3. Otherwise, api.ProbeIncidentAfter failed probes in a row are a major
//     outage (and our own incident). The re-probes that confirm a failure
//     within the cycle (Confirm) count each: a host that stays down gets
//     there in one cycle.
//  4. A feed that fails after declaring a status keeps that status for up to
//     history.MaxHold (the page's last word stands in), so a feed that
//     refuses every other request does not flap an official outage to
//     unknown; while our own incident is open, an "operational" last word
//     reads degraded, as in rule 2.
//  5. Otherwise our probes alone decide, and they can only show an outage
//     (rule 3): a host that answers reads unknown, and so does a probe that
//     failed fewer than api.ProbeIncidentAfter times.
//  6. With neither feed nor probe, the status is unknown, never an outage.
//
// Reachability alone never reads operational. Our probe sends no key: an
// answer below 500 (a 401 included) proves that the API host answers, not
// that the API serves requests; the errors of a page's "elevated errors"
// incident are invisible to it. So our probes can make the page's word
// worse (rules 2 and 3), never better, and where the page has no word (no
// page a program can read, a page unreadable for longer than MaxHold, or a
// scope that matches none of its components) an answering host does not
// make the service operational, nor degraded, which also says it is up:
// the status is unknown. The page's last word, while it may stand in (rule
// 4), is still the page's word. This keeps the rule for our own network:
// with no internet, the probes are discarded and no page is read, and
// every service reads unknown, never an outage and never operational.
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
	before := make(map[string]api.Incident, len(h.Incidents))
	for _, inc := range h.Incidents {
		before[inc.ID] = inc
	}
	incidents := newIncidentSet(h)
	states := make(map[string]ServiceState, len(cat.Services))
	for _, svc := range cat.Services {
		o := obs[svc.Slug]
		sh := h.Track(svc.Slug)
		bridge, before := timelineBridges(sh, o, now, offline), sh.LastFeedStatus
		trackFeed(sh, svc, &o, now, log)
		opened := trackProbe(incidents, svc, sh, o, now)
		watchOutage(sh, o, now)
		status, basis, disagreement := decideStatus(o, sh, incidents, now, offline)
		recordCompletions(sh, o, offline)
		status, basis, disagreement = applyMeasured(svc, sh, o, now, status, basis, disagreement)
		if official, ok := o.declared(); ok {
			sh.LastFeedStatus, sh.LastFeedAt = official, now
		}
		mergeOfficial(incidents, svc.Slug, o, now, log)
		if bridge {
			creditTimeline(h, sh, svc.Slug, before, o, now)
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
		recordSurfaces(h, svc.Slug, sh, o.Surfaces, func(id string) bool { return incidents.get(id) != nil }, offline, now)
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
	logIncidentChanges(h, before, now)
	// The daily rows are taken before the buckets they come from are pruned.
	h.RollUp(now)
	h.Prune(now)
	h.UpdatedAt = now
	return states
}

// logIncidentChanges appends to the change log what this cycle did to the
// incidents: opened (an incident already over when first seen is opened and
// resolved at once), updated (severity, status or headline) and resolved.
// Oldest incidents first, so that the log reads in the order things began.
func logIncidentChanges(h *history.History, before map[string]api.Incident, now time.Time) {
	logIncidents(h, h.Incidents, before, "", now)
}

// logIncidents is logIncidentChanges of incidents (newest first, as kept),
// a surface's own when surface is set: its changes then name the surface,
// as its status changes do.
func logIncidents(h *history.History, incidents []api.Incident, before map[string]api.Incident, surface catalog.SurfaceID, now time.Time) {
	for i := len(incidents) - 1; i >= 0; i-- {
		inc := incidents[i]
		old, known := before[inc.ID]
		add := func(t api.ChangeType, changed []string) {
			c := inc
			h.AddChange(api.Change{Type: t, Service: inc.Service, Surface: surface, Time: now, Incident: &c, Changed: changed})
		}
		if !known {
			add(api.ChangeIncidentOpened, nil)
			if !inc.Open() {
				add(api.ChangeIncidentResolved, nil)
			}
			continue
		}
		var changed []string
		if old.Severity != inc.Severity {
			changed = append(changed, "severity")
		}
		if old.Status != inc.Status {
			changed = append(changed, "status")
		}
		if old.Headline != inc.Headline {
			changed = append(changed, "headline")
		}
		switch {
		case old.Open() && !inc.Open():
			add(api.ChangeIncidentResolved, changed)
		case !old.Open() && inc.Open():
			// Reopened upstream: an update that makes it open again.
			add(api.ChangeIncidentUpdated, append(changed, "endedAt"))
		case len(changed) > 0:
			add(api.ChangeIncidentUpdated, changed)
		}
	}
}

// discardFailedProbes implements rule 1 and reports whether it applied.
func discardFailedProbes(obs map[string]Observation, log zerolog.Logger) bool {
	probed, failed := 0, 0
	for _, o := range obs {
		switch o.Probe.State {
		case api.ProbeOK:
			probed++
		case api.ProbeFailed:
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
		if o.Probe.State == api.ProbeFailed {
			o.Probe.State = api.ProbeDiscarded
			obs[slug] = o
		}
	}
	return true
}

// decideStatus implements rules 2 to 6, after trackProbe has counted this
// cycle's probe: the status, what it rests on (api.Basis), and the
// disagreement with the official page, if our measurement overrules it.
// offline is rule 1's verdict: then no earlier word is held either, since
// nothing was checked.
func decideStatus(o Observation, sh *history.ServiceHistory, incidents incidentSet, now time.Time, offline bool) (api.Status, api.Basis, *api.Disagreement) {
	failing := o.Probe.State == api.ProbeFailed && sh.FailedProbes >= api.ProbeIncidentAfter
	// Our incident stays open until ProbeRecoveryAfter answers in a row,
	// through a probe that fails again in between.
	ourIncident := sh.ProbeIncident != ""
	official, _ := o.declared()
	switch {
	case official != "" && failing && (official == api.Operational || official == api.Degraded):
		return api.MajorOutage, api.BasisProbe, &api.Disagreement{By: api.EvidenceProbe,
			Since: sh.FailingSince, Official: official, Measured: api.MajorOutage,
			Detail: fmt.Sprintf("Our probes of the API have failed %d times in a row since %s, while the official status page says %s.",
				sh.FailedProbes, sh.FailingSince.UTC().Format(time.RFC3339), official),
		}
	case official == api.Operational && ourIncident:
		since := now
		if inc := incidents.get(sh.ProbeIncident); inc != nil {
			since = inc.StartedAt
		}
		detail := fmt.Sprintf("Our probes of the API answer again, but after an outage that began %s we wait for %d answers in a row before calling it recovered; the official status page says operational.",
			since.UTC().Format(time.RFC3339), ProbeRecoveryAfter)
		if o.Probe.State != api.ProbeOK {
			detail = fmt.Sprintf("Our own incident, for an outage that began %s, stays open until our probes of the API answer %d times in a row, which they have not; the official status page says operational.",
				since.UTC().Format(time.RFC3339), ProbeRecoveryAfter)
		}
		return api.Degraded, api.BasisProbe, &api.Disagreement{By: api.EvidenceProbe,
			Since: since, Official: official, Measured: api.Degraded, Detail: detail,
		}
	case official != "":
		return official, api.BasisOfficial, nil
	case failing:
		return api.MajorOutage, api.BasisProbe, nil
	}
	// The page has no word this cycle: its last one stands in while it may
	// (rule 4); without it, reachability alone (rule 5), which is never
	// operational.
	if held, ok := sh.LastWord(now); !offline && ok {
		if held == api.Operational && ourIncident {
			return api.Degraded, api.BasisProbe, nil
		}
		return held, api.BasisOfficial, nil
	}
	switch o.Probe.State {
	case api.ProbeOK, api.ProbeFailed:
		// The host answered, or failed too few times to show an outage.
		return api.Unknown, api.BasisProbe, nil
	}
	// No probe, or one discarded with most others (our network): nothing.
	return api.Unknown, api.BasisNone, nil
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

// feedDeclaresOutage reports whether the official feed already explains a
// failing probe, in which case the official incident covers it.
func feedDeclaresOutage(o Observation) bool {
	if o.Feed.State != api.FeedOK {
		return false
	}
	switch o.Feed.Status {
	case api.PartialOutage, api.MajorOutage, api.Maintenance:
		return true
	}
	return false
}

// trackProbe counts failed and successful probes and opens or closes our own
// incident. It reports whether it opened one.
func trackProbe(incidents incidentSet, svc catalog.Service, sh *history.ServiceHistory, o Observation, now time.Time) (opened bool) {
	switch o.Probe.State {
	case api.ProbeFailed:
		sh.OKProbes, sh.OKSince = 0, time.Time{}
		if feedDeclaresOutage(o) && sh.ProbeIncident == "" {
			sh.FailedProbes, sh.FailingSince = 0, time.Time{}
			return false
		}
		if sh.FailedProbes == 0 {
			sh.FailingSince = now
		}
		// Each failed probe of the cycle counts: the first and the
		// re-probes that confirmed it (Confirm).
		sh.FailedProbes += max(1, o.Probe.Attempts)
		if sh.FailedProbes >= api.ProbeIncidentAfter && sh.ProbeIncident == "" {
			inc := api.Incident{
				ID:        api.ProbeIncidentID(svc.Slug, sh.FailingSince),
				Service:   svc.Slug,
				Headline:  fmt.Sprintf("%s API not reachable from aistatus probes", svc.Name),
				Severity:  api.Major,
				StartedAt: sh.FailingSince,
				Status:    "ongoing",
				Source:    api.SourceProbe,
				URL:       svc.StatusPage,
				UpdatedAt: now,
			}
			incidents.put(inc)
			sh.ProbeIncident = inc.ID
			return true
		}
	case api.ProbeOK:
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
	return false
}

// mergeOfficial folds the feed's incidents into the retained ones. An open
// official incident that a successfully read feed no longer lists has ended.
// At most history.MaxNewIncidentsPerFeed incidents not yet retained are
// added per cycle, the newest first (capNew).
func mergeOfficial(incidents incidentSet, slug string, o Observation, now time.Time, log zerolog.Logger) {
	if o.Feed.State != api.FeedOK {
		return
	}
	listed := make(map[string]bool, len(o.Incidents))
	for _, inc := range o.Incidents {
		listed[inc.ID] = true
	}
	for _, inc := range capNew(incidents, slug, o.Incidents, log) {
		incidents.put(inc)
	}
	for i := range incidents.h.Incidents {
		inc := &incidents.h.Incidents[i]
		if inc.Service == slug && inc.Source == api.SourceOfficial && inc.Open() && !listed[inc.ID] {
			ended := now
			inc.EndedAt, inc.Status, inc.UpdatedAt = &ended, "resolved", now
		}
	}
}

// capNew returns the feed's incidents with those not yet retained cut to
// the newest history.MaxNewIncidentsPerFeed, saying so in one log line: a
// feed that lists thousands of fresh incidents a cycle must not fill the
// retention caps in a few cycles (the pruning is also fair between
// services, so the others' history stays whole either way).
func capNew(incidents incidentSet, slug string, listed []api.Incident, log zerolog.Logger) []api.Incident {
	var fresh []api.Incident
	for _, inc := range listed {
		if incidents.get(inc.ID) == nil {
			fresh = append(fresh, inc)
		}
	}
	if len(fresh) <= history.MaxNewIncidentsPerFeed {
		return listed
	}
	api.SortIncidents(fresh)
	taken := make(map[string]bool, history.MaxNewIncidentsPerFeed)
	for _, inc := range fresh[:history.MaxNewIncidentsPerFeed] {
		taken[inc.ID] = true
	}
	kept := make([]api.Incident, 0, len(listed)-len(fresh)+len(taken))
	for _, inc := range listed {
		if taken[inc.ID] || incidents.get(inc.ID) != nil {
			kept = append(kept, inc)
		}
	}
	log.Warn().Str("service", slug).Int("new", len(fresh)).Int("added", len(taken)).
		Msg("feed listed more new incidents than one cycle adds: the newest were added, the rest wait for later cycles")
	return kept
}

// incidentSet indexes the retained incidents by id for one cycle.
type incidentSet struct {
	h     *history.History
	index map[string]int
}

func newIncidentSet(h *history.History) incidentSet {
	s := incidentSet{h: h, index: make(map[string]int, len(h.Incidents))}
	for i, inc := range h.Incidents {
		s.index[inc.ID] = i
	}
	return s
}

// get returns the incident with the given id, or nil.
func (s incidentSet) get(id string) *api.Incident {
	if i, ok := s.index[id]; ok {
		return &s.h.Incidents[i]
	}
	return nil
}

// put adds inc, or replaces the incident with the same id.
func (s incidentSet) put(inc api.Incident) {
	if i, ok := s.index[inc.ID]; ok {
		s.h.Incidents[i] = inc
		return
	}
	s.index[inc.ID] = len(s.h.Incidents)
	s.h.Incidents = append(s.h.Incidents, inc)
}
