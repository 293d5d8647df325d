package check

import (
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// The fourth stage of a check: when to come back. While the subject is
// down, or the advice is to wait or to fail over, the verdict says when to
// ask again (pollAfterSeconds) and what will end the wait (resumeWhen):
// each condition with the change log's event that marks it, where one
// does, so that a client can stop retrying and resume on the event rather
// than poll; and, for an official incident of the API, how long its kind
// typically lasts (expectedResolution). docs/api.md states these rules.

// The bounds of pollAfterSeconds. Asking sooner than MinPollAfter gets the
// same answer: our live probe is cached that long (LiveTTL). Waiting longer
// than MaxPollAfter would outlast the snapshot's freshness (serve's
// --stale-after default) and the page's last word (history.MaxHold).
const (
	MinPollAfter = LiveTTL
	MaxPollAfter = 15 * time.Minute
)

// The poll interval by what the verdict rests on, before the reliability
// priors stretch it. An incident being investigated may change scope or
// end soon, and its page is updated often; once the cause is identified the
// fix takes its time; once it is monitored the fix is out and the end is
// near. Without an official incident, our failing probe is probed live
// again every LiveTTL, and the rest (our probe incidents, the model
// figures) moves with each build. A planned maintenance has an announced
// end.
const (
	pollInvestigating = 2 * time.Minute // and any stage a page names otherwise ("ongoing")
	pollIdentified    = 5 * time.Minute
	pollMonitoring    = time.Minute
	pollProbeFailing  = LiveTTL
	pollNoIncident    = time.Minute
	pollMaintenance   = 5 * time.Minute
	// priorShare: with the priors, ask about this many times over what is
	// left until the typical incident of its severity would have ended.
	priorShare = 4
)

// comeBack is the fourth stage: how long the API's incident typically
// lasts and, while the verdict tells its caller to stay away, when to ask
// again and what will end the wait.
func comeBack(doc *api.CheckDoc, view View, s said, f facts) {
	v := &doc.Verdict
	if s.subj.id == catalog.SurfaceAPI {
		// The durations it rests on are those of the API's incidents: they
		// say nothing of how long a claude.ai incident lasts.
		v.ExpectedResolution = expectedResolution(view, s.svc.Slug, f.open)
	}
	if waiting(*v) {
		poll := pollAfter(s.status, weightiest(f.open), f.probe() == probeFailing, v.ExpectedResolution, f.now)
		v.PollAfterSeconds, v.ResumeWhen = &poll, resumeWhen(s, f)
	}
}

// waiting reports whether a verdict tells its caller to stay away for a
// while: the advice is to wait or to fail over (and come back later), or
// the subject is down, unless the advice is to fix the call (a refused key,
// a retired model), which no recovery mends.
func waiting(v api.Verdict) bool {
	return v.Action == api.ActionWait || v.Action == api.ActionFailover || (v.Level == "down" && v.Action != api.ActionFixClient)
}

// pollAfter is when to ask again, in seconds: the subject's maintenance,
// the stage of inc (the weightiest open official incident, nil for none)
// or our failing probe sets a base; while the incident is not yet monitored, the time
// left until the service's incidents of its severity typically end
// (expected, the verdict's expectedResolution: to their p50, past it to
// their p90), divided by priorShare, stretches it. Bounded by MinPollAfter
// and MaxPollAfter.
func pollAfter(status api.Status, inc *api.Incident, probeFailing bool, expected *api.ExpectedResolution, now time.Time) int {
	d := pollNoIncident
	monitoring := false
	switch {
	case status == api.Maintenance:
		d = pollMaintenance
	case inc != nil:
		switch strings.ToLower(inc.Status) {
		case "monitoring":
			d, monitoring = pollMonitoring, true
		case "identified":
			d = pollIdentified
		default:
			d = pollInvestigating
		}
	case probeFailing:
		d = pollProbeFailing
	}
	if expected != nil && !monitoring {
		started := expected.StartedAt
		left := started.Add(time.Duration(expected.P50Minutes) * time.Minute).Sub(now)
		if left <= 0 {
			left = started.Add(time.Duration(expected.P90Minutes) * time.Minute).Sub(now)
		}
		d = max(d, left/priorShare)
	}
	return int(min(max(d, MinPollAfter), MaxPollAfter) / time.Second)
}

// weightiest is the open official incident of the worst severity, the
// newest among equals (open is newest first); nil when none is open.
func weightiest(open []*api.Incident) *api.Incident {
	var inc *api.Incident
	for _, o := range open {
		if o.Source == api.SourceOfficial && (inc == nil || severityRank(o.Severity) > severityRank(inc.Severity)) {
			inc = o
		}
	}
	return inc
}

// expectedResolution is how long the service's ended official incidents of
// the severity of its weightiest open one lasted (the worst severity, the
// newest among equals; open is newest first), or nil: with no open official
// incident, or fewer than history.MinBasis ended ones of that severity
// behind the figures. Our own probe incidents get none: the durations are
// of official incidents, whose process is the provider's.
func expectedResolution(view View, slug string, open []*api.Incident) *api.ExpectedResolution {
	inc := weightiest(open)
	if inc == nil {
		return nil
	}
	rel, ok := view.Reliability(slug)
	if !ok {
		return nil
	}
	stats := rel.IncidentDuration.Of(inc.Severity)
	if stats.Incidents < history.MinBasis || stats.P50Minutes == nil || stats.P90Minutes == nil {
		return nil
	}
	return &api.ExpectedResolution{
		Incident: inc.ID, Severity: inc.Severity, StartedAt: inc.StartedAt.UTC(),
		P50Minutes: *stats.P50Minutes, P90Minutes: *stats.P90Minutes, Basis: stats.Incidents,
	}
}

// severityRank orders severities mildest first (api.Severities).
func severityRank(s api.Severity) int {
	for i, sev := range api.Severities {
		if sev == s {
			return i
		}
	}
	return -1
}

// resumeWhen lists what will end the wait, most telling first: the subject
// back to operational (or its maintenance over), each open official
// incident resolved (the first maxIncidentEvidence), our probe answering,
// a model's gateway uptime at the service reaching operational. When
// nothing we watch is wrong (a 529 while the status is up), the caller's
// own call succeeding is the only condition.
func resumeWhen(s said, f facts) []api.ResumeCondition {
	var out []api.ResumeCondition
	subject := api.Change{Service: s.svc.Slug}
	recovered, changed := api.ChangeServiceRecovered, api.ChangeStatus
	if s.subj.id != catalog.SurfaceAPI {
		subject.Surface = s.subj.id
		recovered, changed = api.ChangeSurfaceRecovered, api.ChangeSurfaceStatus
	}
	status := s.status
	if s.mf != nil {
		// model.recovered is of the model's own status, the best of its
		// providers': only an outage there ends with one.
		subject.Model = &api.ChangeModel{ID: s.md.ID}
		recovered, status = api.ChangeModelRecovered, s.mf.doc.Status
	}
	switch status {
	case api.Degraded, api.PartialOutage, api.MajorOutage:
		when := s.name + " is back to operational"
		if s.mf != nil {
			when = s.md.Name + " is back to operational at its best provider"
		}
		out = append(out, api.ResumeCondition{Condition: api.ResumeRecovered, Event: recovered, Subject: subject.Subject(), When: when})
	case api.Maintenance:
		if s.mf == nil {
			out = append(out, api.ResumeCondition{Condition: api.ResumeMaintenanceEnds, Event: changed, Subject: subject.Subject(),
				When: "the planned maintenance of " + s.name + " ends"})
		}
	}
	cited := 0
	for _, inc := range f.open {
		if inc.Source != api.SourceOfficial || cited == maxIncidentEvidence {
			continue
		}
		cited++
		c := api.ResumeCondition{Condition: api.ResumeIncidentResolved, Incident: inc.ID,
			When: fmt.Sprintf("the status page resolves its incident %q", inc.Headline)}
		if f.surface == "" {
			// The change log follows the service's incidents, not a
			// surface's own.
			c.Event, c.Subject = api.ChangeIncidentResolved, s.svc.Slug
		}
		out = append(out, c)
	}
	if f.probe() == probeFailing {
		out = append(out, api.ResumeCondition{Condition: api.ResumeProbeAnswers,
			When: fmt.Sprintf("our probe of %s's API answers again (ask again: /check probes it live)", s.svc.Name)})
	}
	if s.mf != nil && s.mf.here != api.Operational {
		for _, p := range s.mf.doc.Providers {
			if p.Service == s.svc.Slug && p.Source.Kind == api.ModelSourceGateway {
				threshold := history.ModelDegradedBelow
				out = append(out, api.ResumeCondition{Condition: api.ResumeModelUptime, Threshold: &threshold,
					When: fmt.Sprintf("%s's uptime at %s on %s over the last %s reaches %g %%", s.md.Name, s.svc.Name, p.Source.Name, p.Source.Window, threshold)})
				break
			}
		}
	}
	if len(out) == 0 {
		out = append(out, api.ResumeCondition{Condition: api.ResumeCallSucceeds,
			When: "your own call succeeds when retried: nothing we watch shows the trouble"})
	}
	return out
}
