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

// The facts said as evidence: each with its source and the age of its
// observation, the verdict's list of what the advice rests on.

// maxIncidentEvidence bounds the open incidents cited one by one.
const maxIncidentEvidence = 3

// evidence lists the facts behind the advice: the status page's word, our
// probes', and the recent history, each with the age of its observation;
// for a model, what every source says of it first.
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
	if f.modelEvidence != nil {
		return append(f.modelEvidence, ev...)
	}
	return ev
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

// evidence lists what every source says of the model, the checked
// service's entries first.
func (mf modelFacts) evidence(cat catalog.Catalog, svc catalog.Service, age int) []api.Evidence {
	ev := []api.Evidence{}
	entries := slices.Clone(mf.doc.Providers)
	slices.SortStableFunc(entries, func(a, b api.ModelProvider) int {
		return boolRank(a.Service != svc.Slug) - boolRank(b.Service != svc.Slug)
	})
	for _, p := range entries {
		name := p.Service
		if s, ok := cat.Lookup(p.Service); ok {
			name = s.Name
		}
		source, says := saying(mf.md, p, name)
		ev = append(ev, api.Evidence{Source: source, Says: says, AgeSeconds: max(age, 0)})
	}
	if !slices.ContainsFunc(mf.doc.Providers, func(p api.ModelProvider) bool { return p.Service == svc.Slug }) {
		ev = append(ev, api.Evidence{Source: api.EvidenceOfficial, AgeSeconds: max(age, 0),
			Says: fmt.Sprintf("No source reports on %s at %s: its status there is unknown, whatever %s's own status.", mf.md.Name, svc.Name, svc.Name)})
	}
	return ev
}

// saying phrases one entry of a model as evidence: the figure, whose it is
// and over which window.
func saying(md catalog.Model, p api.ModelProvider, serviceName string) (source, says string) {
	where := serviceName
	if p.Provider != "" && p.Provider != serviceName {
		where += " (" + p.Provider + ")"
	}
	if p.Region != nil {
		where += ", " + *p.Region
	}
	switch {
	case p.Source.Error != "":
		return p.Source.Evidence(), fmt.Sprintf("%s at %s: %s gave nothing this cycle (%s), so it reads unknown.", md.Name, where, p.Source.Name, p.Source.Error)
	case p.Source.Kind == api.ModelSourceGateway && p.Uptime != nil:
		return api.EvidenceGateway, fmt.Sprintf("%s at %s: %.1f %% of %s's requests succeeded over the last %s (%s); that is %s's traffic, not your key's.",
			md.Name, where, *p.Uptime, p.Source.Name, p.Source.Window, p.Status, p.Source.Name)
	case p.Source.Kind == api.ModelSourceGateway:
		return api.EvidenceGateway, fmt.Sprintf("%s at %s: %s has too little traffic over the last %s to tell.", md.Name, where, p.Source.Name, p.Source.Window)
	case p.Source.Kind == api.ModelSourceMeasured && p.Uptime != nil:
		return api.EvidenceMeasured, fmt.Sprintf("%s at %s: %.1f %% of our own completions succeeded over the last %s (%s), with our key, not yours.",
			md.Name, where, *p.Uptime, p.Source.Window, p.Status)
	case p.Source.Kind == api.ModelSourceMeasured:
		return api.EvidenceMeasured, fmt.Sprintf("%s at %s: our own completions say %s.", md.Name, where, p.Status)
	}
	return api.EvidenceOfficial, fmt.Sprintf("%s at %s: %s shows its component %q as %s.", md.Name, where, p.Source.Name, p.Source.Component, p.Status)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
