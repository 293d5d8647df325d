package history

import (
	"fmt"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// ProbeRecoveryAfter consecutive successful probes close our own incident.
const ProbeRecoveryAfter = 2

// Reading is what one check read of one service that the status and
// incident rules weigh: the official feed (Feed.Status is what it declared
// when Feed.State is ok), the incidents it listed, and our probe of the API
// host.
type Reading struct {
	Feed      api.FeedSource
	Incidents []api.Incident
	Probe     api.ProbeSource
}

// Declared is the status the official feed declared this check, if it was
// read and declared one ("" and false otherwise).
func (r Reading) Declared() (api.Status, bool) {
	if r.Feed.State == api.FeedOK && r.Feed.Status.Valid() && r.Feed.Status != api.Unknown {
		return r.Feed.Status, true
	}
	return "", false
}

// DeclaresOutage reports whether the official feed already explains a
// failing probe, in which case the official incident covers it.
func (r Reading) DeclaresOutage() bool {
	if r.Feed.State != api.FeedOK {
		return false
	}
	switch r.Feed.Status {
	case api.PartialOutage, api.MajorOutage, api.Maintenance:
		return true
	}
	return false
}

// CountProbe counts failed and successful probes and opens or closes our
// own incident in incidents. It reports whether it opened one.
//
// A probe failing while the page declares an outage (DeclaresOutage) is
// explained by the page: it starts no run of ours. Each failed probe of the
// check counts, the first and the re-probes that confirmed it
// (api.ProbeSource.Attempts): a host that stays down opens our incident
// after api.ProbeIncidentAfter of them, in one check when enough were sent.
// The incident starts at the first failure and closes, ended at the first
// answer, after ProbeRecoveryAfter answers in a row. A discarded or absent
// probe changes nothing: no data is not evidence.
func (sh *ServiceHistory) CountProbe(incidents IncidentIndex, svc catalog.Service, r Reading, now time.Time) (opened bool) {
	switch r.Probe.State {
	case api.ProbeFailed:
		sh.OKProbes, sh.OKSince = 0, time.Time{}
		if r.DeclaresOutage() && sh.ProbeIncident == "" {
			sh.FailedProbes, sh.FailingSince = 0, time.Time{}
			return false
		}
		if sh.FailedProbes == 0 {
			sh.FailingSince = now
		}
		sh.FailedProbes += max(1, r.Probe.Attempts)
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
			incidents.Put(inc)
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
			if inc := incidents.Get(sh.ProbeIncident); inc != nil {
				ended := sh.OKSince
				inc.EndedAt, inc.Status, inc.UpdatedAt = &ended, "resolved", now
			}
			sh.ProbeIncident = ""
		}
	}
	return false
}

// DecideStatus is the service's status from the page and our probe, after
// CountProbe has counted this check's: the status, what it rests on
// (api.Basis), and the disagreement with the official page when our
// measurement overrules it. offline says our own network failed this check
// (most probes failed at once, and theirs were discarded): then no earlier
// word of the page is held either, since nothing was checked. The rules,
// numbered as in docs/api.md (rule 1, our own network, is the caller's):
//
//  2. The page's declared status wins when the page was read and declared
//     one — unless our own measurement contradicts it: when
//     api.ProbeIncidentAfter probes in a row have failed while the page
//     says operational or degraded, the status is a major outage and the
//     disagreement is published; while our own incident is still open
//     (until the probe has answered ProbeRecoveryAfter times in a row,
//     even if it fails again in between), an "operational" page reads
//     degraded. We never publish "operational" beside an open incident of
//     ours.
//  3. Otherwise, api.ProbeIncidentAfter failed probes in a row are a major
//     outage (and our own incident, which CountProbe opened).
//  4. A page that fails after declaring a status keeps that status for up
//     to MaxHold (its last word stands in, LastWord), so a page that
//     refuses every other request does not flap an official outage to
//     unknown; while our own incident is open, an "operational" last word
//     reads degraded, as in rule 2.
//  5. Otherwise our probes alone decide, and they can only show an outage
//     (rule 3): a host that answers reads unknown, and so does a probe
//     that failed fewer than api.ProbeIncidentAfter times.
//  6. With neither page nor probe, the status is unknown, never an outage.
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
// 4), is still the page's word.
func (sh *ServiceHistory) DecideStatus(r Reading, incidents IncidentIndex, now time.Time, offline bool) (api.Status, api.Basis, *api.Disagreement) {
	failing := r.Probe.State == api.ProbeFailed && sh.FailedProbes >= api.ProbeIncidentAfter
	// Our incident stays open until ProbeRecoveryAfter answers in a row,
	// through a probe that fails again in between.
	ourIncident := sh.ProbeIncident != ""
	official, _ := r.Declared()
	switch {
	case official != "" && failing && (official == api.Operational || official == api.Degraded):
		return api.MajorOutage, api.BasisProbe, &api.Disagreement{By: api.EvidenceProbe,
			Since: sh.FailingSince, Official: official, Measured: api.MajorOutage,
			Detail: fmt.Sprintf("Our probes of the API have failed %d times in a row since %s, while the official status page says %s.",
				sh.FailedProbes, sh.FailingSince.UTC().Format(time.RFC3339), official),
		}
	case official == api.Operational && ourIncident:
		since := now
		if inc := incidents.Get(sh.ProbeIncident); inc != nil {
			since = inc.StartedAt
		}
		detail := fmt.Sprintf("Our probes of the API answer again, but after an outage that began %s we wait for %d answers in a row before calling it recovered; the official status page says operational.",
			since.UTC().Format(time.RFC3339), ProbeRecoveryAfter)
		if r.Probe.State != api.ProbeOK {
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
	// The page has no word this check: its last one stands in while it may
	// (rule 4); without it, reachability alone (rule 5), which is never
	// operational.
	if held, ok := sh.LastWord(now); !offline && ok {
		if held == api.Operational && ourIncident {
			return api.Degraded, api.BasisProbe, nil
		}
		return held, api.BasisOfficial, nil
	}
	switch r.Probe.State {
	case api.ProbeOK, api.ProbeFailed:
		// The host answered, or failed too few times to show an outage.
		return api.Unknown, api.BasisProbe, nil
	}
	// No probe, or one discarded with most others (our network): nothing.
	return api.Unknown, api.BasisNone, nil
}

// HeldWord is the page's last word on a surface when the surface's
// status this cycle is that word held (the status recorded is it, read
// before this cycle, while it may stand in: LastWord), and when it was
// read.
func (sh *ServiceHistory) HeldWord(now time.Time) (api.Status, time.Time, bool) {
	if w, ok := sh.LastWord(now); ok && w == sh.LastStatus && sh.LastFeedAt.Before(now) {
		return w, sh.LastFeedAt, true
	}
	return "", time.Time{}, false
}

// OwnNetworkMinProbes is the smallest number of probed services for which
// a majority of failures is blamed on our own network (rule 1).
const OwnNetworkMinProbes = 4

// OurNetworkDown is rule 1, about our own network rather than a service:
// when most of a cycle's probes failed at once (of at least
// OwnNetworkMinProbes probed), our vantage point is offline, not that
// many services; every failed probe is then discarded (recorded as no
// data, no incident opened or advanced). It says how many failed of how
// many were probed.
func OurNetworkDown(probes []api.ProbeSource) (down bool, failed, probed int) {
	for _, p := range probes {
		switch p.State {
		case api.ProbeOK:
			probed++
		case api.ProbeFailed:
			probed++
			failed++
		}
	}
	return probed >= OwnNetworkMinProbes && failed*2 > probed, failed, probed
}
