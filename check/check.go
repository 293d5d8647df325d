// Package check is /check's engine: "is it me or them?". It resolves a
// query to a tracked service, gathers what a snapshot and our own live probe
// say about it, and advises a caller that has just seen an error.
//
// The engine reads a snapshot through View and our probes through Prober,
// both small interfaces, so that the thin server (serve), `aistatus check`
// and the MCP server ask the same engine, and its tests need no server: a
// fake view is enough. The pieces, one file each:
//
//   - match.go: the query to a service (name, alias, domain, URL) and the
//     suggestions for a near miss;
//   - rules.go: what the caller saw (the error parameter) and the one table
//     of rules that turns its input (ruleInput) into advice;
//   - facts.go: the facts a verdict rests on, and the evidence and
//     alternatives that go with it;
//   - live.go: the live probe of the service's API (or of a surface's own
//     host), cached and coalesced.
package check

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// MaxQuery caps /check's q, in bytes.
const MaxQuery = 256

// View is what the engine reads of a snapshot. A view never changes while
// it is read: the server hands one snapshot to a whole request.
type View interface {
	// GeneratedAt is when the snapshot was built; the history window counts
	// back from it.
	GeneratedAt() time.Time
	// Age is how old the snapshot is at now, and whether that is too old to
	// trust (a snapshot from the future beyond the clock skew allowance is
	// stale too).
	Age(now time.Time) (age time.Duration, stale bool)
	// Summary is a service's entry of status.json; false when the snapshot
	// has none.
	Summary(slug string) (api.ServiceSummary, bool)
	// OpenIncidents are the service's open incidents, newest first. They
	// belong to the view: never modified.
	OpenIncidents(slug string) []*api.Incident
	// IncidentsSince counts the service's incidents that started at or
	// after since, and returns the newest of them (nil when none).
	IncidentsSince(slug string, since time.Time) (count int, latest *api.Incident)
	// BuildProbe is our probe of the service in the latest build, and when
	// it was made; false when the snapshot has none.
	BuildProbe(slug string) (Live, bool)
	// Measured is what our completions measured of the service's models
	// in the latest build; empty when none was measured.
	Measured(slug string) []api.MeasuredModel
	// Reliability is what the service's retained history predicts
	// (api.Reliability); false when the snapshot has none.
	Reliability(slug string) (api.Reliability, bool)
	// Vantages is what every vantage point saw of the service's API host
	// in the latest build; false when the build read none.
	Vantages(slug string) (api.Vantages, bool)
}

// Request is one question to the engine: what the caller asks about, and
// what the caller just saw.
type Request struct {
	// Query names the service: a slug, name, alias, domain or URL.
	Query string
	// Error is what the caller's own call got: an HTTP status from 100 to
	// 599, "timeout" or "connection"; "" for none.
	Error string
	// Code is the error code or type in the provider's error body
	// (insufficient_quota, overloaded_error, RESOURCE_EXHAUSTED); "" for
	// none. A code the service's table lists decides the class of error
	// over the HTTP status.
	Code string
	// RetryAfter is the Retry-After the caller got, in seconds; nil for none.
	RetryAfter *int
	// Model names a watched model (its id, name or an alias) to check at
	// the service q names; "" for none. q may also name a model by itself.
	Model string
	// Client is the caller's address in the crowd (the rate limit's key: an
	// IPv4 address or an IPv6 /64), whose network is its voice (Network);
	// "" when the caller is not counted (the local CLI, an unknown
	// address). Only a request with Error counts.
	Client string
}

// MaxRetryAfter bounds the retryAfter parameter: a day.
const MaxRetryAfter = 86400

// InputError is a request the engine refuses as it stands: the caller's
// mistake, for a 400 that names the parameter.
type InputError struct {
	Param, Detail string
}

func (e *InputError) Error() string { return e.Param + ": " + e.Detail }

// validate checks the request's parameters, the same for every client.
func (req Request) validate() (errorClass, error) {
	switch q := req.Query; {
	case q == "":
		return "", &InputError{"q", "q is required: a service name, domain or URL, e.g. ?q=openai"}
	case len(q) > MaxQuery:
		return "", &InputError{"q", fmt.Sprintf("q is longer than %d bytes", MaxQuery)}
	case !utf8.ValidString(q):
		return "", &InputError{"q", "q is not valid UTF-8"}
	}
	if m := req.Model; len(m) > MaxQuery || !utf8.ValidString(m) {
		return "", &InputError{"model", fmt.Sprintf("model must be a watched model's id or name, valid UTF-8 of at most %d bytes", MaxQuery)}
	}
	class, ok := classifyObserved(req.Error)
	if !ok {
		return "", &InputError{"error", ObservedHelp}
	}
	if req.Code != "" && !catalog.ValidErrorCode(req.Code) {
		return "", &InputError{"code", "code must be the error code or type from the provider's error body: 1 to 64 letters, digits or _.:- (e.g. insufficient_quota, overloaded_error, RESOURCE_EXHAUSTED)"}
	}
	if r := req.RetryAfter; r != nil && (*r < 0 || *r > MaxRetryAfter) {
		return "", &InputError{"retryAfter", fmt.Sprintf("retryAfter must be the Retry-After you got, in whole seconds from 0 to %d", MaxRetryAfter)}
	}
	return class, nil
}

// Vantage is where the checker runs, which says whose network its own
// probes test when they fail.
type Vantage int

const (
	// FromServer: the checker is a server (/check, the MCP server); its
	// network is its own.
	FromServer Vantage = iota
	// FromCaller: the checker runs on the caller's machine (aistatus
	// check); its network is the caller's.
	FromCaller
)

// egressHosts is how many other providers' hosts the engine probes to tell
// its own network being down from the provider's API being down.
const egressHosts = 3

// Engine answers /check questions. It is safe for concurrent use.
type Engine struct {
	cat     catalog.Catalog
	matcher *Matcher
	// prober is our live probe of a service's API; nil means none, and the
	// snapshot's word on our probes stands alone.
	prober  Prober
	now     func() time.Time
	vantage Vantage
	// probeURLs are the catalog's probe URLs in catalog order, from which
	// the egress check picks other providers' hosts.
	probeURLs []string
	// models are the watched models by normalised name (models.go).
	models map[string]catalog.Model
	// crowd counts callers' reports (crowd.go); nil counts none.
	crowd Crowd
	// here is the vantage point the engine's live probes are made from
	// (serve --vantage), the region of the callers it answers; "" for none.
	here string
}

// AtVantage says the engine's live probes are made from the vantage point
// name (serve --vantage): its probe is its callers' region's, and when it
// fails while other vantages reach the host the advice is to route
// elsewhere, not to fail over. "" changes nothing. It returns e.
func (e *Engine) AtVantage(name string) *Engine {
	e.here = name
	return e
}

// CountReports makes the engine count every request with an error and a
// client as a report in crowd, and cite the count. It returns e.
func (e *Engine) CountReports(crowd Crowd) *Engine {
	e.crowd = crowd
	return e
}

// New returns an engine for a catalog. The catalog is the only source of
// URLs it ever probes, never the query.
func New(cat catalog.Catalog, prober Prober, now func() time.Time, vantage Vantage) *Engine {
	e := &Engine{cat: cat, matcher: NewMatcher(cat), prober: prober, now: now, vantage: vantage, models: modelIndex(cat)}
	for _, svc := range cat.Services {
		if svc.ProbeURL != "" {
			e.probeURLs = append(e.probeURLs, svc.ProbeURL)
		}
	}
	return e
}

// fresher is the newer of a live probe and the latest build's probe of the
// service: a cached live probe is up to LiveTTL old, and a build that probed
// since then knows better (after a recovery, /check would otherwise say "our
// probe failed" for up to 30 s). A build probe that was discarded (our own
// network failed for most services) or not made says nothing.
func fresher(live Live, view View, slug string) Live {
	built, ok := view.BuildProbe(slug)
	if ok && built.At.After(live.At) && (built.Probe.State == api.ProbeOK || built.Probe.State == api.ProbeFailed) {
		return built
	}
	return live
}

// egressDown reports whether most of our probes of other providers' hosts
// fail too, once our probe of subject's has failed: then the checker's own
// network is down, and that probe proves nothing about the provider. The
// hosts are the first egressHosts of the catalog on other hosts than
// subject's, probed at once through the same cache as every live probe (so
// at most one request per host per LiveTTL, whatever the traffic).
func (e *Engine) egressDown(subject string) bool {
	host := urlHost(subject)
	var others []string
	for _, u := range e.probeURLs {
		if h := urlHost(u); h != host && len(others) < egressHosts {
			others = append(others, u)
		}
	}
	if len(others) == 0 {
		return false
	}
	failed := make([]bool, len(others))
	var wg sync.WaitGroup
	for i, u := range others {
		wg.Go(func() { failed[i] = e.prober.Probe(u).Probe.State != api.ProbeOK })
	}
	wg.Wait()
	n := 0
	for _, f := range failed {
		if f {
			n++
		}
	}
	return 2*n > len(others)
}

// urlHost is a URL's host and port, "" when it has none.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// Check answers req against view: the service's status phrased for people
// and, with the advice of the first matching rule (see rules.go), what to
// do about the error the caller saw. A request it refuses is an
// *InputError.
//
// It reads status.json and models.json (view), not the snapshot's
// situation: its answer adds what only a request knows (a live probe,
// the caller's error, the crowd), and the statuses it starts from are the
// same values the situation is made from, which the build's consistency
// tests hold equal.
func (e *Engine) Check(view View, req Request) (api.CheckDoc, error) {
	class, err := req.validate()
	if err != nil {
		return api.CheckDoc{}, err
	}
	now := e.now()
	doc := api.CheckDoc{Query: req.Query, Timestamp: now.UTC(), License: api.License}
	if req.Error != "" {
		doc.Error = &req.Error
	}
	if req.Code != "" {
		doc.Code = &req.Code
	}
	doc.RetryAfter = req.RetryAfter
	said, err := e.say(view, req)
	if err != nil {
		return api.CheckDoc{}, err
	}
	if !said.tracked {
		// No advice for a service we know nothing of: the action fields are
		// left out, and the lists are empty rather than null.
		doc.Verdict = api.Verdict{
			Headline:     fmt.Sprintf("%q is not a service aistatus tracks", api.Truncate(req.Query, 64)),
			Emoji:        "❓",
			Level:        "untracked",
			Suggestions:  e.matcher.Suggest(req.Query),
			Evidence:     []api.Evidence{},
			Alternatives: []api.CheckAlternative{},
		}
		doc.OtherSurfaces = []api.CheckOtherSurface{}
		return doc, nil
	}
	svc, subj, mf, status := said.svc, said.subj, said.mf, said.status
	sum := subj.sum
	doc.Tracked = true
	doc.Service = &api.CheckService{Slug: svc.Slug, Name: svc.Name, Domain: svc.Domain}
	doc.Surface = &api.CheckSurface{ID: subj.id, Name: svc.SurfaceName(subj.id), Component: subj.component}
	doc.OtherSurfaces = otherSurfaces(said.summary, subj.id)
	if mf != nil {
		doc.Model = mf.checkModel()
	}
	doc.Status = &status
	if basis := sum.Basis; basis.Valid() && mf == nil {
		// A snapshot written before statuses had a basis has none: null,
		// not a guess.
		doc.Basis = &basis
	}
	var live *Live
	oursDown := false
	// Our probe is of the API host: it says nothing of another surface.
	if svc.ProbeURL != "" && e.prober != nil && subj.id == catalog.SurfaceAPI {
		r := e.prober.Probe(svc.ProbeURL)
		if e.here == "" {
			// At a vantage, the build's probe is another place's: this
			// region's own probe is what its callers see.
			r = fresher(r, view, svc.Slug)
		}
		live = &r
		if r.Probe.State == api.ProbeOK {
			at := r.At.UTC()
			doc.LatencyMs, doc.LatencyCheckedAt = r.Probe.LatencyMs, &at
		} else {
			oursDown = e.egressDown(svc.ProbeURL)
		}
	}
	// Another surface is probed at its own host (claude.ai), through the
	// same cache: its latency, and evidence that it answers.
	if subj.probeURL != "" && e.prober != nil {
		r := e.prober.Probe(subj.probeURL)
		live = &r
		if r.Probe.State == api.ProbeOK {
			at := r.At.UTC()
			doc.LatencyMs, doc.LatencyCheckedAt = r.Probe.LatencyMs, &at
		}
	}
	age, stale := view.Age(now)
	seconds := int(age.Seconds())
	doc.Verdict = verdict(said.name, status, stale, age)
	if mf == nil {
		doc.Verdict.Detail = joinSentences(subj.detail(svc.Name, svc.SurfaceName(subj.id)), othersSentence(doc.OtherSurfaces))
	} else {
		doc.Verdict.Detail = joinSentences(mf.detail(svc, sum), othersSentence(doc.OtherSurfaces))
	}
	doc.Verdict.DataAgeSeconds = &seconds

	f := gather(view, svc, subj, live, now, seconds)
	got, _ := strconv.Atoi(req.Error) // 0 for timeout, connection or none
	if req.Code != "" {
		row, known := e.cat.ErrorCode(svc, req.Code, got)
		f.code = &codeFact{code: req.Code, row: row, known: known}
		if known {
			class = codeClasses[row.Class]
		}
		if known && got == 0 {
			for _, other := range e.cat.ErrorCodes[svc.ErrorCodes] {
				if other.Code == req.Code && other.Class != row.Class {
					f.code.others = append(f.code.others, other)
				}
			}
		}
	}
	// A status the provider gives a meaning of its own (Groq's 498) reads
	// as that, unless a listed code said what it was.
	if row, ok := e.cat.ErrorStatus(svc, got); ok && (f.code == nil || !f.code.known) {
		class = codeClasses[row.Class]
		f.status = &row
	}
	if oursDown {
		f.ownNetwork = e.vantage
		f.ownNetworkDown = true
	}
	if v, ok := view.Vantages(svc.Slug); ok && subj.id == catalog.SurfaceAPI && mf == nil {
		f.vantages, f.here = &v, e.here
	}
	// The crowd counts reports of the service's API: a caller's error on
	// claude.ai is not one, and is neither counted nor read.
	if subj.id == catalog.SurfaceAPI {
		f.reports = e.crowdSays(svc.Slug, req, now)
	}
	// The catalog's alternatives stand in for the API (Claude on Bedrock):
	// none stands in for claude.ai or Claude Code. A model's are the other
	// services where that model is up.
	alts := []api.CheckAlternative{}
	switch {
	case mf != nil:
		alts = mf.alternatives(e.cat, svc)
	case subj.id == catalog.SurfaceAPI:
		alts = alternatives(view, svc)
	}
	a := decide(ruleInput{Error: class, Health: health(doc.Verdict.Level), Probe: f.probe(),
		Incident: f.officialIncident(), AltUp: anyUp(alts), RetryAfter: req.RetryAfter,
		Surge: f.reports != nil && f.reports.State() == ReportsSurge})
	v := &doc.Verdict
	v.Action, v.Blame, v.Confidence, v.Reason = a.Action, a.Blame, a.Confidence, a.Reason
	if a.RetryAfter > 0 {
		v.RetryAfterSeconds = &a.RetryAfter
	}
	v.Evidence, v.Alternatives = f.evidence(), alts
	if subj.id == catalog.SurfaceAPI {
		// The durations it rests on are those of the API's incidents: they
		// say nothing of how long a claude.ai incident lasts.
		v.ExpectedResolution = expectedResolution(view, svc.Slug, f.open)
	}
	if mf != nil {
		v.Evidence = append(mf.evidence(e.cat, svc, seconds), v.Evidence...)
		applyRetirement(view, req, class, *said.md, &doc, now)
	}
	if waiting(*v) {
		poll := pollAfter(status, weightiest(f.open), f.probe() == probeFailing, v.ExpectedResolution, now)
		v.PollAfterSeconds, v.ResumeWhen = &poll, resumeWhen(said, f)
	}
	return doc, nil
}

// crowdSays is the crowd's count to cite in a check of slug's API: the
// window's count with the caller's voice added when req is a report (an
// error and a client), whatever its state; for any other check, the count
// only when it is a surge, so that a plain /check (and the statusline)
// learns of many callers failing without sending error= itself, while a
// quiet count says nothing to someone who reported nothing. nil when
// there is no crowd, it cannot count, or there is nothing to cite.
func (e *Engine) crowdSays(slug string, req Request, now time.Time) *ReportCount {
	if e.crowd == nil {
		return nil
	}
	if req.Error != "" && req.Client != "" {
		if rc, ok := e.crowd.Report(slug, req.Client, now); ok {
			return &rc
		}
		return nil
	}
	if rc, ok := e.crowd.Count(slug, now); ok && rc.State() == ReportsSurge {
		return &rc
	}
	return nil
}

// said is what a check says of its subject before any probe or advice:
// which service, surface or model q names, under what name, and its
// status. Check and Statusline both read it, so that the line and the
// verdict cannot say different things of one name.
type said struct {
	// tracked is false when q names nothing aistatus tracks, or the
	// snapshot has no word on the service; the rest is then empty.
	tracked bool
	svc     catalog.Service
	// summary is the service's entry of the snapshot, every surface
	// included; subj.sum is the part the verdict reads.
	summary api.ServiceSummary
	subj    surfaceSubject
	// md is the model q names (or the model parameter), and mf what the
	// snapshot says of it; nil when none.
	md *catalog.Model
	mf *modelFacts
	// name is the verdict's subject: "claude.ai", "Anthropic API", "Groq"
	// (a service that has only its API), "Claude Sonnet 4.5 at Anthropic".
	name   string
	status api.Status
}

// say resolves req's subject in view and reads its status: the
// surface's, or the model's at the service, never the service's borrowed.
func (e *Engine) say(view View, req Request) (said, error) {
	svc, surfaceID, ok, md, err := e.subject(view, req)
	if err != nil {
		return said{}, err
	}
	sum, inSnapshot := view.Summary(svc.Slug)
	if !ok || !inSnapshot {
		return said{}, nil
	}
	s := said{tracked: true, svc: svc, summary: sum, subj: subject(svc, sum, surfaceID).named(req.Query)}
	s.name, s.status = s.subj.name, s.subj.sum.Status
	if md != nil {
		// A model's verdict is the model's at this service, from its own
		// sources: never the service's status borrowed.
		facts := readModel(view, *md, svc)
		s.md, s.mf, s.status = md, &facts, facts.here
		s.name = md.Name + " at " + svc.Name
	}
	return s, nil
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
