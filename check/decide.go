package check

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// The third stage of a check: the verdict phrased for people, and the
// advice of the rule table (rules.go) on the gathered facts.

// decideVerdict is the third stage: the verdict on s, phrased from its
// status and where that came from, with the advice of the first matching
// rule (rules.go) on the facts, the evidence and the alternatives; a
// retired model's advice is to change the model.
func decideVerdict(doc *api.CheckDoc, view View, req Request, s said, f facts) {
	if f.live != nil && f.live.Probe.State == api.ProbeOK {
		at := f.live.At.UTC()
		doc.LatencyMs, doc.LatencyCheckedAt = f.live.Probe.LatencyMs, &at
	}
	doc.Verdict = verdict(s.name, s.status, f.stale, f.age)
	if s.mf == nil {
		doc.Verdict.Detail = joinSentences(s.subj.detail(s.svc.Name, s.svc.SurfaceName(s.subj.id)), othersSentence(doc.OtherSurfaces))
	} else {
		doc.Verdict.Detail = joinSentences(s.mf.detail(s.svc, s.subj.sum), othersSentence(doc.OtherSurfaces))
	}
	seconds := f.dataAge
	doc.Verdict.DataAgeSeconds = &seconds

	a := decide(ruleInput{Error: f.class, Health: health(doc.Verdict.Level), Probe: f.probe(),
		Incident: f.officialIncident(), AltUp: anyUp(f.alternatives), RetryAfter: req.RetryAfter,
		Surge: f.reports != nil && f.reports.State() == ReportsSurge})
	v := &doc.Verdict
	v.Action, v.Blame, v.Confidence, v.Reason = a.Action, a.Blame, a.Confidence, a.Reason
	if a.RetryAfter > 0 {
		v.RetryAfterSeconds = &a.RetryAfter
	}
	v.Evidence, v.Alternatives = f.evidence(), f.alternatives
	if s.mf != nil {
		applyRetirement(view, req, f.class, *s.md, doc, f.now)
	}
}

// verdict phrases a status for people. Stale data is said to be stale
// instead of being presented as current.
func verdict(name string, status api.Status, stale bool, age time.Duration) api.Verdict {
	if stale {
		return api.Verdict{
			Headline: fmt.Sprintf("Data is stale: %s was last checked %s ago (it was %s then)", name, api.HumanDuration(age), phrase(status)),
			Emoji:    "⏳", Level: "stale", Stale: true,
		}
	}
	v := api.Verdict{Headline: name + " is " + phrase(status), Emoji: status.Emoji()}
	switch status {
	case api.Operational:
		v.Level = "up"
	case api.Degraded:
		v.Level = "degraded"
	case api.PartialOutage, api.MajorOutage:
		v.Level = "down"
	case api.Maintenance:
		v.Level = "maintenance"
	default:
		v.Headline = "We can't tell whether " + name + " is up right now"
		v.Level = "unknown"
	}
	return v
}

// phrase says a status in a verdict's sentence, around its word
// (api.StatusSay.Word): "up but degraded", "down (major outage)".
func phrase(s api.Status) string {
	w := s.Word()
	switch s {
	case api.Degraded:
		return "up but " + w
	case api.PartialOutage:
		return "partly down (" + w + ")"
	case api.MajorOutage:
		return "down (" + w + ")"
	case api.Maintenance:
		return "under " + w
	case api.Operational:
		return w
	}
	return "of " + w + " status"
}

// verdictDetail says where the status came from when that matters to
// whoever acts on it: our probes overruling the official page, or a page
// that could not be read or does not exist, and then what the status rests
// on instead (its basis).
func verdictDetail(name string, sum api.ServiceSummary) string {
	if sum.Disagreement != nil {
		return sum.Disagreement.Detail
	}
	var page string
	switch sum.Feed {
	case api.FeedError:
		page = name + "'s status page could not be read this time"
	case api.FeedNone:
		page = name + " has no status page that a program can read"
	default:
		return ""
	}
	switch {
	case sum.Basis == api.BasisOfficial:
		return page + fmt.Sprintf("; the status is the page's last word, at most %d minutes old.", int(history.MaxHold.Minutes()))
	case sum.Basis == api.BasisProbe && sum.Status == api.Unknown:
		return page + "; our probe only shows whether its API host answers, which cannot show that the API works."
	case sum.Basis == api.BasisProbe:
		return page + "; the status is our own probes'."
	case sum.Basis == api.BasisMeasured:
		return page + "; the status is our own streamed completions of its models'."
	case sum.Basis == api.BasisNone:
		return page + ", and our probe gave nothing to go on either."
	}
	return page + "."
}

// detail says where the verdict's status came from when that matters:
// for the API, verdictDetail's word on the page and our probes; for
// another surface, that the page gave no word on it (the API's page
// being read or not says nothing of a surface whose own read succeeded).
func (s surfaceSubject) detail(service, surface string) string {
	switch {
	case s.id == catalog.SurfaceAPI:
		return verdictDetail(service, s.sum)
	case s.component != "":
		return s.componentSentence(surface)
	case s.missing:
		return fmt.Sprintf("This snapshot has no status for %s: it was written before surfaces, or the catalog changed since.", s.name)
	case s.sum.Basis == api.BasisNone && s.probeURL != "":
		return fmt.Sprintf("The official status page gave no word on %s in the latest check; our probe of its host shows only whether it answers, which cannot show that it works.", s.name)
	case s.sum.Basis == api.BasisNone:
		return fmt.Sprintf("The official status page gave no word on %s in the latest check; our probe tests the API host only, which says nothing of it.", s.name)
	}
	return ""
}

// componentSentence says that the verdict is one component's word, and
// what the rest of its surface says: "The verdict is the official page's
// component "claude.ai", which the query names; the claude.ai surface,
// which also holds Claude Cowork, is partly down (partial outage)."
func (s surfaceSubject) componentSentence(surface string) string {
	var others []string
	for _, c := range s.components {
		if c.Name != s.component {
			others = append(others, c.Name)
		}
	}
	return fmt.Sprintf("The verdict is the official page's component %q, which the query names; the %s surface, which also holds %s, is %s.",
		s.component, surface, api.JoinList(others, " and "), phrase(s.surfaceStatus))
}

// othersSentence names the other surfaces in trouble, for the verdict's
// detail: "Also: claude.ai is down (major outage) per the official status
// page." "" when none is.
func othersSentence(others []api.CheckOtherSurface) string {
	if len(others) == 0 {
		return ""
	}
	parts := make([]string, len(others))
	for i, o := range others {
		parts[i] = o.Name + " is " + phrase(o.Status)
		switch o.Basis {
		case api.BasisOfficial:
			parts[i] += " per the official status page"
		case api.BasisProbe:
			parts[i] += " per our probes"
		}
	}
	return "Also: " + api.JoinList(parts, "; and ") + "."
}

// modelDetail says what a model's verdict rests on.
func (mf modelFacts) detail(svc catalog.Service, sum api.ServiceSummary) string {
	out := fmt.Sprintf("The verdict is for %s at %s, from what its sources say of the model there (see model.providers), "+
		"not %s's own status (%s).", mf.md.Name, svc.Name, svc.Name, sum.Status)
	if a := mf.agreement; a != nil {
		switch a.Verdict {
		case api.AgreementGatewayTrouble, api.AgreementConfirmed, api.AgreementDisputed:
			// The witnesses disagree: which one the status follows, and why.
			out += " " + a.Statement
		}
	}
	return out
}

// joinSentences joins non-empty sentences with a space.
func joinSentences(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}

// maxNewerModels bounds the newer models a retired model's answer names.
const maxNewerModels = 3

// retirementAt is the model's entry of the retirement calendar as it
// stands at now: an announced date that has come since the snapshot was
// built reads retired. ok is false for a model not on the calendar.
func retirementAt(view View, id string, now time.Time) (r api.ModelRetirement, ok bool) {
	lv, isLV := view.(LifecycleView)
	if !isLV {
		return api.ModelRetirement{}, false
	}
	if r, ok = lv.Retirement(id); ok && r.RetiredBy(now) {
		r.State = api.RetirementRetired
	}
	return r, ok
}

// applyRetirement turns a check of a retired model, or of one announced to
// retire when the caller got a 404 or a model-not-found code, into advice
// to fix the client, naming newer models of the maker that are up. A
// retired model's verdict says so in the past tense, at its own level
// (api.LevelRetired): a model nobody can call is not up, whatever its
// providers last said. For an announced model without such an error the
// verdict stands, and its detail says the date.
func applyRetirement(view View, req Request, class errorClass, md catalog.Model, doc *api.CheckDoc, now time.Time) {
	r, ok := retirementAt(view, md.ID, now)
	if !ok {
		return
	}
	lv := view.(LifecycleView)
	if doc.Model != nil {
		doc.Model.Retirement = &r
	}
	v := &doc.Verdict
	notFound := req.Error == "404" || class == errModel || strings.EqualFold(req.Code, "model_not_found")
	newer := newerModelsUp(lv, md, now)
	switch {
	case r.State == api.RetirementRetired:
		v.Headline = fmt.Sprintf("%s was retired on %s", md.Name, r.Date)
		v.Level, v.Emoji = api.LevelRetired, api.EmojiRetired
	case notFound:
		v.Headline = fmt.Sprintf("%s is to be retired on %s", md.Name, r.Date)
	default:
		v.Detail = joinSentences(v.Detail, fmt.Sprintf("%s is to be retired on %s (%s).", md.Name, r.Date, r.Reason))
		return
	}
	v.Action, v.Blame, v.Confidence, v.RetryAfterSeconds = api.ActionFixClient, api.BlameClient, api.ConfidenceHigh, nil
	v.Reason = fmt.Sprintf("%s: %s (%s). Requests naming it fail whatever the service's status: change the model.", md.Name, r.Reason, r.Date)
	if len(newer) > 0 {
		v.Reason += " Newer models of the same maker that are up: " + strings.Join(newer, ", ") + "."
	}
}

// newerModelsUp names the watched models of md's maker, added to the list
// after md (or any, when its date is unknown), up by their sources and not
// retired, newest first.
func newerModelsUp(lv LifecycleView, md catalog.Model, now time.Time) []string {
	docs := lv.WatchedModels()
	var since *api.ModelDoc
	if i := slices.IndexFunc(docs, func(d api.ModelDoc) bool { return d.ID == md.ID }); i >= 0 {
		since = &docs[i]
	}
	var up []api.ModelDoc
	for _, d := range docs {
		if d.Author != md.Author || d.ID == md.ID || !d.Status.Usable() {
			continue
		}
		if r, ok := lv.Retirement(d.ID); ok && r.RetiredBy(now) {
			continue
		}
		if since != nil && since.Created != nil && (d.Created == nil || !d.Created.After(*since.Created)) {
			continue
		}
		up = append(up, d)
	}
	slices.SortStableFunc(up, func(a, b api.ModelDoc) int {
		switch {
		case a.Created == nil && b.Created == nil:
			return 0
		case a.Created == nil:
			return 1
		case b.Created == nil:
			return -1
		}
		return b.Created.Compare(*a.Created)
	})
	names := make([]string, 0, maxNewerModels)
	for _, d := range up[:min(len(up), maxNewerModels)] {
		names = append(names, d.Name+" ("+d.ID+")")
	}
	return names
}
