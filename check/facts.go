package check

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// historyWindow is how far back the history evidence looks.
const historyWindow = 7 * 24 * time.Hour

// maxIncidentEvidence bounds the open incidents cited one by one.
const maxIncidentEvidence = 3

// facts are what the snapshot and the live probe say about a service,
// gathered once for the rules' input and the evidence.
type facts struct {
	name    string
	sum     api.ServiceSummary
	dataAge int // seconds
	// live is the live probe's result; nil when the service has no probe.
	live *Live
	now  time.Time
	// open are the service's open incidents, newest first; recent is the
	// number that started within historyWindow of the snapshot, and latest
	// the newest of those. They belong to the view: never modified.
	open   []*api.Incident
	recent int
	latest *api.Incident
	// ownNetworkDown: our live probe failed, and so did most of our probes
	// of other providers' hosts (Engine.egressDown); ownNetwork says whose
	// network that is.
	ownNetworkDown bool
	ownNetwork     Vantage
	// code is the provider's error code the caller sent; nil for none.
	code *codeFact
	// status is the service's status row for the HTTP status the caller
	// got (catalog.ErrorStatus), when no listed code decided; nil for none.
	status *catalog.ErrorCode
	// surface is the surface the verdict covers, when it is not the API:
	// our probes, our completions and the incident history are the API's,
	// and say nothing of it. "" for the API.
	surface string
	// measured are our completions of the service's models, latest build.
	measured []api.MeasuredModel
	// reports is the crowd's count for the service's current window; nil
	// when not counted.
	reports *ReportCount
	// vantages is what every vantage point saw of the API host in the
	// latest build, and here the engine's own (Engine.AtVantage); nil and
	// "" without.
	vantages *api.Vantages
	here     string
}

// regional reports whether the host fails from here, the engine's vantage,
// while another vantage reaches it: the caller's region or path, not the
// provider. Here's word is its live probe (at most check.LiveTTL old), or
// the build's reading of it when there is none.
func (f facts) regional() bool {
	if f.here == "" || f.vantages == nil || f.ownNetworkDown {
		return false
	}
	failingHere, othersReach := false, false
	for _, p := range f.vantages.Points {
		switch {
		case p.Name == f.here:
			failingHere = p.State == api.ProbeFailed
		case p.State == api.ProbeOK:
			othersReach = true
		}
	}
	if f.live != nil {
		failingHere = f.live.Probe.State != api.ProbeOK
	}
	return failingHere && othersReach
}

// codeFact is a provider's error code and what the service's table says of
// it.
type codeFact struct {
	code  string
	row   catalog.ErrorCode
	known bool
	// others are the code's rows of another class, when it came without
	// an HTTP status and row is its usual one (or the most severe of them):
	// the caller is told what the status would have changed.
	others []catalog.ErrorCode
}

// gather collects what the verdict rests on.
func gather(view View, svc catalog.Service, subj surfaceSubject, live *Live, now time.Time, dataAge int) facts {
	f := facts{name: svc.Name, sum: subj.sum, dataAge: dataAge, live: live, now: now}
	if subj.id != catalog.SurfaceAPI {
		f.surface, f.open = subj.name, subj.open
		return f
	}
	f.open, f.measured = view.OpenIncidents(svc.Slug), view.Measured(svc.Slug)
	f.recent, f.latest = view.IncidentsSince(svc.Slug, view.GeneratedAt().Add(-historyWindow))
	return f
}

// probe is our probes' word: the live probe's when there is one (at most
// 30 s old, the freshest we have), otherwise the snapshot's — failing while
// our probes overrule the page or our own incident is open.
func (f facts) probe() probeState {
	if f.surface != "" {
		// Our probe of a surface's own host shows that it answers, and the
		// rows that read our probe speak of the API: the surface's advice
		// rests on its page.
		return probeNone
	}
	switch {
	case f.ownNetworkDown && f.ownNetwork == FromCaller:
		return probeYoursDown
	case f.ownNetworkDown:
		return probeOursDown
	case f.regional():
		return probeRegional
	}
	if f.live != nil {
		if f.live.Probe.State == api.ProbeOK {
			return probeOK
		}
		return probeFailing
	}
	if f.sum.Disagreement != nil && f.sum.Disagreement.Measured != api.Degraded {
		return probeFailing
	}
	for _, inc := range f.open {
		if inc.Source == api.SourceProbe {
			return probeFailing
		}
	}
	return probeNone
}

// officialIncident reports an open official incident that weighs on the
// advice: a major or critical one. A minor one (slower answers, one
// feature) is cited as evidence but does not turn a 429 into the
// provider's fault or a failover.
func (f facts) officialIncident() bool {
	for _, inc := range f.open {
		if inc.Source == api.SourceOfficial && inc.Severity != api.Minor {
			return true
		}
	}
	return false
}

// evidence lists the facts behind the advice: the status page's word, our
// probes', and the recent history, each with the age of its observation.
func (f facts) evidence() []api.Evidence {
	ev := []api.Evidence{}
	add := func(source, says string, age int) {
		ev = append(ev, api.Evidence{Source: source, Says: says, AgeSeconds: max(age, 0)})
	}
	official := f.sum.Status
	if d := f.sum.Disagreement; d != nil {
		official = d.Official
	}
	switch {
	case f.surface != "" && f.sum.Basis == api.BasisOfficial:
		add(api.EvidenceOfficial, fmt.Sprintf("The status page says %s for %s.", official, f.surface), f.dataAge)
	case f.surface != "":
		add(api.EvidenceOfficial, fmt.Sprintf("The status page gave no word on %s in the latest check.", f.surface), f.dataAge)
	case f.sum.Feed == api.FeedOK:
		add(api.EvidenceOfficial, fmt.Sprintf("The status page says %s.", official), f.dataAge)
	case f.sum.Feed == api.FeedError:
		says := "The status page could not be read in the latest check."
		if f.sum.Basis == api.BasisOfficial {
			says = fmt.Sprintf("The status page could not be read in the latest check; its last word, at most %d minutes old, says %s.",
				int(history.MaxHold.Minutes()), official)
		}
		add(api.EvidenceOfficial, says, f.dataAge)
	default:
		add(api.EvidenceOfficial, "There is no status page a program can read.", f.dataAge)
	}
	cited := 0
	for _, inc := range f.open {
		if inc.Source != api.SourceOfficial || cited == maxIncidentEvidence {
			continue
		}
		cited++
		add(api.EvidenceOfficial, fmt.Sprintf("Open incident %q (%s, %s, since %s).", inc.Headline, inc.Severity, inc.Status,
			inc.StartedAt.UTC().Format(time.RFC3339)), f.dataAge)
	}

	if f.live != nil {
		age := int(f.now.Sub(f.live.At).Seconds())
		of := "its API"
		if f.surface != "" {
			of = f.surface + "'s host"
		}
		if p := f.live.Probe; p.State == api.ProbeOK && p.LatencyMs != nil {
			says := fmt.Sprintf("Our probe of %s answered in %.0f ms", of, *p.LatencyMs)
			if p.HTTPStatus != 0 {
				says += fmt.Sprintf(" (HTTP %d; the probe sends no key)", p.HTTPStatus)
			}
			if f.surface != "" {
				// A bot challenge's 403 is an answer too.
				says += ": the host answers, which does not show that " + f.surface + " works"
			}
			add(api.EvidenceProbe, says+".", age)
		} else {
			add(api.EvidenceProbe, "Our probe of "+of+" failed: "+cmp.Or(p.Error, "no answer")+".", age)
		}
		if f.ownNetworkDown {
			add(api.EvidenceProbe, "Our probes of other providers' hosts fail too: the checker's own network looks down, so our probe says nothing about this one.", age)
		}
	} else if f.surface != "" {
		add(api.EvidenceProbe, fmt.Sprintf("Our probe tests %s's API host only, which says nothing of %s.", f.name, f.surface), f.dataAge)
	} else {
		add(api.EvidenceProbe, fmt.Sprintf("%s has no generic API host that we probe.", f.name), f.dataAge)
	}
	if d := f.sum.Disagreement; d != nil {
		add(api.EvidenceProbe, d.Detail, f.dataAge)
	}
	for _, inc := range f.open {
		if inc.Source == api.SourceProbe {
			add(api.EvidenceProbe, fmt.Sprintf("Our own incident is open: our probes have failed since %s.", inc.StartedAt.UTC().Format(time.RFC3339)), f.dataAge)
			break
		}
	}

	if v := f.vantages; v != nil {
		for _, p := range v.Points {
			who := "From " + p.Name
			if p.Name == f.here {
				who += " (this server's region, at the latest build)"
			}
			says := who + ", the API host did not answer."
			if p.State == api.ProbeOK && p.LatencyMs != nil {
				says = fmt.Sprintf("%s, the API host answered in %.0f ms.", who, *p.LatencyMs)
			}
			add(api.EvidenceVantage, says, int(f.now.Sub(p.At).Seconds()))
		}
		if v.Reading == api.VantageRegional || v.Reading == api.VantageUnreachable {
			add(api.EvidenceVantage, v.Detail, f.dataAge)
		}
	}

	for _, m := range f.measured {
		age := f.dataAge
		if m.LastSampleAt != nil {
			age = int(f.now.Sub(*m.LastSampleAt).Seconds())
		}
		add(api.EvidenceMeasured, measuredSays(m), age)
	}

	if c := f.code; c != nil {
		if c.known {
			says := fmt.Sprintf("Your error code %s is, for %s's API, %s (%s).", c.code, f.name, codeMeaning[c.row.Class], c.row.Doc)
			if len(c.others) > 0 {
				var with []string
				for _, o := range c.others {
					if o.Status != 0 {
						with = append(with, fmt.Sprintf("with a %d it is %s", o.Status, codeMeaning[o.Class]))
					} else {
						with = append(with, "with another status it is "+codeMeaning[o.Class])
					}
				}
				read := "the most severe of its meanings"
				if c.row.Usual {
					read = fmt.Sprintf("its meaning with a %d, the status %s sends it with most", c.row.Status, f.name)
				}
				says += " Without the HTTP status it is read as " + read + "; " + strings.Join(with, ", ") +
					": send error= with the status you got."
			}
			add(api.EvidenceCaller, says, 0)
		} else {
			add(api.EvidenceCaller, fmt.Sprintf("Your error code %s is not in our table for %s's API: the HTTP status decides.", c.code, f.name), 0)
		}
	}
	if s := f.status; s != nil {
		add(api.EvidenceCaller, fmt.Sprintf("Your HTTP status %d is, for %s's API, %s, not what it means elsewhere (%s).", s.Status, f.name, codeMeaning[s.Class], s.Doc), 0)
	}

	if r := f.reports; r != nil {
		observed, count := f.now.UTC(), r.Count
		ev = append(ev, api.Evidence{Source: api.EvidenceReports, Says: r.Says(), State: r.State(),
			ObservedAt: &observed, Count: &count, Baseline: r.Baseline})
	}

	switch n := f.recent; {
	case f.surface != "":
		add(api.EvidenceHistory, fmt.Sprintf("The 7-day incident count is the API's; %s's incidents are under surfaces in the service's document.", f.surface), f.dataAge)
	case n == 0:
		add(api.EvidenceHistory, "No incidents in the last 7 days.", f.dataAge)
	default:
		latest := f.latest
		state := "still open"
		if latest.EndedAt != nil {
			state = "ended " + latest.EndedAt.UTC().Format(time.RFC3339)
		}
		count := "1 incident"
		if n > 1 {
			count = fmt.Sprintf("%d incidents", n)
		}
		add(api.EvidenceHistory, fmt.Sprintf("%s in the last 7 days; the latest, %q (%s), %s.", count, latest.Headline, latest.Severity, state), f.dataAge)
	}
	return ev
}

// alternatives are the service's catalog alternatives that are not down
// (short of a partial outage), best status first (api.CompareUsable) and,
// within a status, in the catalog's curated order.
func alternatives(view View, svc catalog.Service) []api.CheckAlternative {
	out := []api.CheckAlternative{}
	for _, a := range svc.Alternatives {
		sum, ok := view.Summary(a.Slug)
		if !ok || !sum.Status.Valid() || sum.Status.AtLeast(api.PartialOutage) {
			continue
		}
		out = append(out, api.CheckAlternative{Slug: a.Slug, Name: sum.Name, Status: sum.Status, Why: a.Why})
	}
	slices.SortStableFunc(out, func(a, b api.CheckAlternative) int { return api.CompareUsable(a.Status, b.Status) })
	return out
}

// anyUp reports whether an alternative is usable now (operational or
// degraded): one a caller can fail over to now.
func anyUp(alts []api.CheckAlternative) bool {
	return slices.ContainsFunc(alts, func(a api.CheckAlternative) bool { return a.Status.Usable() })
}

// codeMeaning says each class of error code in words.
var codeMeaning = map[catalog.ErrorCodeClass]string{
	catalog.CodeQuota:       "a quota or billing limit",
	catalog.CodeConcurrency: "a cap on requests in flight per key",
	catalog.CodeRateLimit:   "a transient rate limit",
	catalog.CodeOverloaded:  "the provider being overloaded",
	catalog.CodeServer:      "a server error of the provider's",
	catalog.CodeTimeout:     "a timeout",
	catalog.CodeRequest:     "a request refused as it stands",
	catalog.CodeAuth:        "a credentials or permission error",
	catalog.CodeModel:       "a model that does not exist or is not available to the key",
	catalog.CodeRegion:      "a country or region the provider does not serve",
}

// measuredSays says what our completions measured of one model: "Our
// streamed completions of openai/gpt-4o-mini read degraded: the latest
// overloaded (HTTP 529, overloaded_error); in the last hour 3 of 5 failed,
// time to first token p50 412 ms."
func measuredSays(m api.MeasuredModel) string {
	says := fmt.Sprintf("Our streamed completions of %s read %s: the latest %s", m.Model, m.Status, m.LastOutcome)
	if e := m.Windows.Hour.LastError; e != nil && e.Outcome == m.LastOutcome && e.Detail() != "" {
		says += " (" + e.Detail() + ")"
	}
	h := m.Windows.Hour
	if h.Samples > 0 && h.ErrorRate != nil {
		failed := int(math.Round(*h.ErrorRate * float64(h.Samples)))
		says += fmt.Sprintf("; in the last hour %d of %d failed", failed, h.Samples)
	}
	if h.TTFTMs.P50 != nil {
		says += fmt.Sprintf(", time to first token p50 %.0f ms", *h.TTFTMs.P50)
	}
	if m.Note != "" {
		says += ". " + m.Note
		return says
	}
	return says + "."
}
