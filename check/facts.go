package check

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// The second stage of a check: the facts gathered, once, from our live
// probes, the snapshot, the caller's error as the service's own table
// reads it, the crowd and the alternatives (gather). The stages after it
// read them; evidence.go says them.

// historyWindow is how far back the history evidence looks.
const historyWindow = 7 * 24 * time.Hour

// facts are what the snapshot and the live probe say about a service,
// gathered once (gather) for the rules' input, the evidence and when
// to come back.
type facts struct {
	name string
	sum  api.ServiceSummary
	// age is the snapshot's age at now, stale whether that is too old to
	// trust (View.Age), and dataAge the age in seconds.
	age     time.Duration
	stale   bool
	dataAge int
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
	// class is what the caller saw, as the service's table reads it
	// (readError).
	class errorClass
	// alternatives are where the caller can go instead (the catalog's
	// for the API, the model's other services for a model); empty for
	// another surface.
	alternatives []api.CheckAlternative
	// modelEvidence is what every source says of the checked model; nil
	// when the check is not of a model.
	modelEvidence []api.Evidence
}

// gather is the second stage: what our live probes, the snapshot, the
// caller's error and the crowd say of s, read once for the rules, the
// evidence and when to come back.
func (e *Engine) gather(view View, req Request, s said, class errorClass, now time.Time) facts {
	svc, subj := s.svc, s.subj
	f := facts{name: svc.Name, sum: subj.sum, now: now, class: class, alternatives: []api.CheckAlternative{}}
	// Our probe is of the API host: it says nothing of another surface.
	if svc.ProbeURL != "" && e.prober != nil && subj.id == catalog.SurfaceAPI {
		r := e.prober.Probe(svc.ProbeURL)
		if e.here == "" {
			// At a vantage, the build's probe is another place's: this
			// region's own probe is what its callers see.
			r = fresher(r, view, svc.Slug)
		}
		f.live = &r
		if r.Probe.State != api.ProbeOK && e.egressDown(svc.ProbeURL) {
			f.ownNetwork, f.ownNetworkDown = e.vantage, true
		}
	}
	// Another surface is probed at its own host (claude.ai), through the
	// same cache: its latency, and evidence that it answers.
	if subj.probeURL != "" && e.prober != nil {
		r := e.prober.Probe(subj.probeURL)
		f.live = &r
	}
	f.age, f.stale = view.Age(now)
	f.dataAge = int(f.age.Seconds())
	if subj.id != catalog.SurfaceAPI {
		f.surface, f.open = subj.name, subj.open
	} else {
		f.open, f.measured = view.OpenIncidents(svc.Slug), view.Measured(svc.Slug)
		f.recent, f.latest = view.IncidentsSince(svc.Slug, view.GeneratedAt().Add(-historyWindow))
	}
	e.readError(&f, svc, req)
	if v, ok := view.Vantages(svc.Slug); ok && subj.id == catalog.SurfaceAPI && s.mf == nil {
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
	switch {
	case s.mf != nil:
		f.alternatives = s.mf.alternatives(e.cat, svc)
	case subj.id == catalog.SurfaceAPI:
		f.alternatives = alternatives(view, svc)
	}
	if s.mf != nil {
		f.modelEvidence = s.mf.evidence(e.cat, svc, f.dataAge)
	}
	return f
}

// readError reads the caller's error through svc's own table: a provider's
// error code the table lists decides the class of error over the HTTP
// status, and a status the provider gives a meaning of its own (Groq's
// 498) reads as that, unless a listed code said what it was.
func (e *Engine) readError(f *facts, svc catalog.Service, req Request) {
	got, _ := strconv.Atoi(req.Error) // 0 for timeout, connection or none
	if req.Code != "" {
		row, known := e.cat.ErrorCode(svc, req.Code, got)
		f.code = &codeFact{code: req.Code, row: row, known: known}
		if known {
			f.class = codeClasses[row.Class]
		}
		if known && got == 0 {
			for _, other := range e.cat.ErrorCodes[svc.ErrorCodes] {
				if other.Code == req.Code && other.Class != row.Class {
					f.code.others = append(f.code.others, other)
				}
			}
		}
	}
	if row, ok := e.cat.ErrorStatus(svc, got); ok && (f.code == nil || !f.code.known) {
		f.class = codeClasses[row.Class]
		f.status = &row
	}
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

// egressHosts is how many other providers' hosts the engine probes to tell
// its own network being down from the provider's API being down.
const egressHosts = 3

// egressDown reports whether most of our probes of other providers' hosts
// fail too, once our probe of subject's has failed: then the checker's own
// network is down, and that probe proves nothing about the provider. The
// hosts are the first egressHosts of the catalog on other hosts than
// subject's (egressURLs), probed at once through the same cache as every
// live probe (so at most one request per host per LiveTTL, whatever the
// traffic); a result the cache holds is read without a goroutine.
func (e *Engine) egressDown(subject string) bool {
	others := e.egress[subject]
	if len(others) == 0 {
		return false
	}
	failed := make([]bool, len(others))
	fresh, _ := e.prober.(freshProber)
	var wg sync.WaitGroup
	for i, u := range others {
		if fresh != nil {
			if r, ok := fresh.Fresh(u); ok {
				failed[i] = r.Probe.State != api.ProbeOK
				continue
			}
		}
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

// freshProber is a Prober that tells what it holds without probing (Cache).
type freshProber interface {
	Fresh(url string) (Live, bool)
}

// egressURLs are, by each probe URL of cat's services, the first
// egressHosts probe URLs of the catalog, in its order, on other hosts.
func egressURLs(cat catalog.Catalog) map[string][]string {
	var urls, hosts []string
	for _, svc := range cat.Services {
		if svc.ProbeURL != "" {
			urls, hosts = append(urls, svc.ProbeURL), append(hosts, urlHost(svc.ProbeURL))
		}
	}
	egress := make(map[string][]string, len(urls))
	for i, subject := range urls {
		var others []string
		for j, u := range urls {
			if hosts[j] != hosts[i] && len(others) < egressHosts {
				others = append(others, u)
			}
		}
		egress[subject] = others
	}
	return egress
}

// urlHost is a URL's host and port, "" when it has none.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
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
		if rc, ok := e.crowd.Report(slug, Network(req.Client), now); ok {
			return &rc
		}
		return nil
	}
	if rc, ok := e.crowd.Count(slug, now); ok && rc.State() == ReportsSurge {
		return &rc
	}
	return nil
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

// alternatives are the other services where the model is up (operational
// or degraded) as its witnesses there agree (history.BestModelStatus),
// best first, each with the figure that says so; the catalog's curated
// alternatives do not apply: they serve other models too.
func (mf modelFacts) alternatives(cat catalog.Catalog, svc catalog.Service) []api.CheckAlternative {
	out := []api.CheckAlternative{}
	seen := map[string]bool{}
	entries := slices.Clone(mf.doc.Providers)
	// Best status first, then the higher figure.
	slices.SortStableFunc(entries, func(a, b api.ModelProvider) int {
		if d := api.CompareUsable(a.Status, b.Status); d != 0 {
			return d
		}
		return cmpFigure(b.Uptime, a.Uptime)
	})
	for _, p := range entries {
		if p.Service == svc.Slug || seen[p.Service] || !p.Status.Usable() || p.Status != history.BestModelStatus(mf.doc.Providers, p.Service) {
			continue // not up there, or not what the witnesses there agree on
		}
		s, ok := cat.Lookup(p.Service)
		if !ok {
			continue
		}
		seen[p.Service] = true
		_, why := saying(mf.md, p, s.Name)
		out = append(out, api.CheckAlternative{Slug: s.Slug, Name: s.Name, Status: p.Status, Why: "Serves " + mf.md.Name + ". " + why})
	}
	return out
}

func cmpFigure(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	case *a < *b:
		return -1
	case *a > *b:
		return 1
	}
	return 0
}

// anyUp reports whether an alternative is usable now (operational or
// degraded): one a caller can fail over to now.
func anyUp(alts []api.CheckAlternative) bool {
	return slices.ContainsFunc(alts, func(a api.CheckAlternative) bool { return a.Status.Usable() })
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

// regional reports whether the host fails from here, the engine's vantage,
// while at least api.MinOthersReaching other vantages reach it: the
// caller's region or path, not the provider. One other vantage is not
// enough, as in the build's regional rule (history.ReadVantages): one
// report could be one vantage's mistake, or one writer's. Here's word is
// its live probe (at most check.LiveTTL old), or the build's reading of it
// when there is none.
func (f facts) regional() bool {
	if f.here == "" || f.vantages == nil || f.ownNetworkDown {
		return false
	}
	failingHere, othersReaching := false, 0
	for _, p := range f.vantages.Points {
		switch {
		case p.Name == f.here:
			failingHere = p.State == api.ProbeFailed
		case p.State == api.ProbeOK:
			othersReaching++
		}
	}
	if f.live != nil {
		failingHere = f.live.Probe.State != api.ProbeOK
	}
	return failingHere && othersReaching >= api.MinOthersReaching
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
