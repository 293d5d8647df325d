package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

var genTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// fakeView is a snapshot as the engine sees it, made in memory.
type fakeView struct {
	generatedAt time.Time
	staleAfter  time.Duration
	summaries   map[string]api.ServiceSummary
	incidents   []api.Incident  // newest first
	probes      map[string]Live // the latest build's
	measured    map[string][]api.MeasuredModel
	reliability map[string]api.Reliability
	vantages    map[string]api.Vantages
}

func (v *fakeView) Vantages(slug string) (api.Vantages, bool) {
	r, ok := v.vantages[slug]
	return r, ok
}

func (v *fakeView) Reliability(slug string) (api.Reliability, bool) {
	r, ok := v.reliability[slug]
	return r, ok
}

func (v *fakeView) Measured(slug string) []api.MeasuredModel { return v.measured[slug] }

func (v *fakeView) GeneratedAt() time.Time { return v.generatedAt }

func (v *fakeView) BuildProbe(slug string) (Live, bool) {
	p, ok := v.probes[slug]
	return p, ok
}

func (v *fakeView) Age(now time.Time) (time.Duration, bool) {
	age := now.Sub(v.generatedAt)
	if age < 0 {
		return 0, -age > history.MaxClockSkew
	}
	return age, age > v.staleAfter
}

func (v *fakeView) Summary(slug string) (api.ServiceSummary, bool) {
	s, ok := v.summaries[slug]
	return s, ok
}

func (v *fakeView) OpenIncidents(slug string) []*api.Incident {
	var open []*api.Incident
	for i := range v.incidents {
		if v.incidents[i].Service == slug && v.incidents[i].Open() {
			open = append(open, &v.incidents[i])
		}
	}
	return open
}

func (v *fakeView) IncidentsSince(slug string, since time.Time) (int, *api.Incident) {
	n, latest := 0, (*api.Incident)(nil)
	for i := range v.incidents {
		if inc := &v.incidents[i]; inc.Service == slug && !inc.StartedAt.Before(since) {
			if n == 0 {
				latest = inc
			}
			n++
		}
	}
	return n, latest
}

// fakeProber answers every probe URL with a 401 in 120 ms, but the URLs in
// failing, whose probes fail; it counts the probes.
type fakeProber struct {
	failing []string
	at      time.Time
	probes  atomic.Int64
}

func (p *fakeProber) Probe(url string) Live {
	p.probes.Add(1)
	if slices.Contains(p.failing, url) {
		return Live{Probe: api.ProbeSource{State: api.ProbeFailed, Error: "connection refused"}, At: p.at}
	}
	return Live{Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(120.0), HTTPStatus: 401}, At: p.at}
}

func testCatalog(t testing.TB) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// testView is the world the engine tests ask about: openai degraded with an
// open official incident, cohere down by our probes while its page says
// operational, the services without a feed unknown while their hosts answer
// our probe, deepgram's page unreadable (its scope matches nothing) and its
// host answering, assemblyai's page unreadable with its last word standing
// in, and every other service operational by its page, with a little
// history.
func testView(cat catalog.Catalog) *fakeView {
	v := &fakeView{generatedAt: genTime, staleAfter: 15 * time.Minute, summaries: map[string]api.ServiceSummary{}}
	for _, svc := range cat.Services {
		sum := api.ServiceSummary{Slug: svc.Slug, Name: svc.Name, Status: api.Operational, Basis: api.BasisOfficial, Feed: api.FeedOK}
		switch {
		case svc.Slug == "openai":
			sum.Status = api.Degraded
		case svc.Slug == "cohere":
			sum.Status, sum.Basis = api.MajorOutage, api.BasisProbe
			sum.Disagreement = &api.Disagreement{By: api.EvidenceProbe, Since: genTime.Add(-3 * time.Minute), Official: api.Operational,
				Measured: api.MajorOutage, Detail: "Our probes of the API have failed 3 times in a row, while the official status page says operational."}
		case svc.Slug == "deepgram":
			sum.Status, sum.Basis, sum.Feed = api.Unknown, api.BasisProbe, api.FeedError
		case svc.Slug == "assemblyai":
			sum.Feed = api.FeedError
		case svc.Slug == "groq":
			sum.Status, sum.Basis, sum.Feed = api.Operational, api.BasisMeasured, api.FeedNone
		case svc.Slug == "deepseek":
			sum.Status, sum.Basis = api.Degraded, api.BasisMeasured
			sum.Disagreement = &api.Disagreement{By: api.EvidenceMeasured, Since: genTime.Add(-time.Minute), Official: api.Operational,
				Measured: api.Degraded, Detail: "Our completions fail while the official status page says operational: deepseek/deepseek-chat reads degraded."}
		case svc.Feed.Format == catalog.FormatNone:
			sum.Status, sum.Basis, sum.Feed = api.Unknown, api.BasisProbe, api.FeedNone
		}
		v.summaries[svc.Slug] = sum
	}
	ttft, rate, last := 412.4, 0.6, genTime.Add(-time.Minute)
	v.measured = map[string][]api.MeasuredModel{"deepseek": {{
		Model: "deepseek/deepseek-chat", APIModel: "deepseek-chat", Status: api.Degraded, LastSampleAt: &last, LastOutcome: api.OutcomeOverloaded,
		Windows: api.MeasuredWindows{Hour: api.MeasuredWindow{Window: "1h", Samples: 5, ErrorRate: &rate, TTFTMs: api.Percentiles{P50: &ttft, P95: &ttft},
			LastError: &api.MeasuredError{At: last, Outcome: api.OutcomeOverloaded, HTTPStatus: 503, Code: "server_is_overloaded"}}},
	}}}
	ended := genTime.Add(-47 * time.Hour)
	v.incidents = []api.Incident{
		{ID: "openai-01", Service: "openai", Headline: "Elevated errors", Severity: api.Major, StartedAt: genTime.Add(-1 * time.Hour), Status: "investigating", Source: api.SourceOfficial},
		{ID: "anthropic-02", Service: "anthropic", Headline: "Slow responses", Severity: api.Minor, StartedAt: genTime.Add(-30 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial},
		{ID: "openai-03", Service: "openai", Headline: "Outage", Severity: api.Critical, StartedAt: genTime.Add(-10 * 24 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial},
	}
	return v
}

// newTestEngine is an engine over the default catalog whose live probes of
// the slugs in failing fail, a minute after the view was built.
func newTestEngine(t testing.TB, failing ...string) (*Engine, *fakeView, *fakeProber) {
	cat := testCatalog(t)
	p := &fakeProber{at: genTime.Add(time.Minute)}
	for _, svc := range cat.Services {
		if slices.Contains(failing, svc.Slug) {
			p.failing = append(p.failing, svc.ProbeURL)
		}
	}
	return New(cat, p, func() time.Time { return genTime.Add(time.Minute) }, FromServer), testView(cat), p
}

// TestCheckAdvice asks the engine with an error against the test view: the
// advice, the alternatives and the evidence, one row per case.
func TestCheckAdvice(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t, "groq")
	type want struct {
		action, blame, confidence string
		retryAfter                int
		alternatives              []string
		says                      string // in some evidence
	}
	for _, tt := range []struct {
		q, error string
		want     want
	}{
		{"anthropic", "", want{"proceed", "unknown", "high", 0, []string{"aws-bedrock", "google-gemini", "openrouter"}, "The status page says operational."}},
		{"claude", "401", want{"fix_client", "client", "high", 0, []string{"aws-bedrock", "google-gemini", "openrouter"}, "(HTTP 401; the probe sends no key)"}},
		{"anthropic", "403", want{"fix_client", "client", "high", 0, nil, ""}},
		{"anthropic", "422", want{"fix_client", "client", "high", 0, nil, ""}},
		{"anthropic", "429", want{"retry", "client", "high", 30, nil, "1 incident in the last 7 days"}},
		{"anthropic", "500", want{"retry", "provider", "medium", 10, nil, ""}},
		{"anthropic", "timeout", want{"retry", "unknown", "medium", 10, nil, ""}},
		{"anthropic", "200", want{"proceed", "unknown", "high", 0, nil, ""}},
		// An official incident is open: wait, but an alternative is up.
		{"openai", "529", want{"failover", "provider", "high", 0, []string{"azure-openai", "openrouter"}, `Open incident "Elevated errors"`}},
		{"openai", "", want{"proceed", "provider", "medium", 0, nil, ""}},
		// Our probes overrule a calm page.
		{"cohere", "", want{"failover", "provider", "high", 0, []string{"aws-bedrock", "openrouter"}, "while the official status page says operational"}},
		{"cohere", "connection", want{"failover", "provider", "medium", 0, nil, ""}},
		// Our live probe of groq fails too.
		{"groq", "timeout", want{"failover", "provider", "high", 0, []string{"cerebras", "together", "fireworks", "openrouter"}, "Our probe of its API failed"}},
		{"groq", "", want{"retry", "provider", "medium", 30, nil, ""}},
		// No alternatives in the catalog.
		{"pinecone", "503", want{"retry", "provider", "medium", 10, []string{}, "No incidents in the last 7 days."}},
		// The page unreadable: its last word stands in, and says so.
		{"assemblyai", "", want{"proceed", "unknown", "high", 0, nil, "its last word, at most 15 minutes old, says operational."}},
		// No page, the host answers: unknown, whatever the probe says.
		{"mistral", "", want{"retry", "unknown", "low", 60, nil, "There is no status page a program can read."}},
	} {
		t.Run(tt.q+"/"+tt.error, func(t *testing.T) {
			doc, err := engine.Check(view, Request{Query: tt.q, Error: tt.error})
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			retry := 0
			if v.RetryAfterSeconds != nil {
				retry = *v.RetryAfterSeconds
			}
			if v.Action != tt.want.action || v.Blame != tt.want.blame || v.Confidence != tt.want.confidence || retry != tt.want.retryAfter || v.Reason == "" {
				t.Errorf("verdict %s/%s/%s retry %d (%q), want %+v", v.Action, v.Blame, v.Confidence, retry, v.Reason, tt.want)
			}
			if (tt.error == "") != (doc.Error == nil) || (doc.Error != nil && *doc.Error != tt.error) {
				t.Errorf("error echoed as %v, sent %q", doc.Error, tt.error)
			}
			var alts []string
			for _, a := range v.Alternatives {
				alts = append(alts, a.Slug)
				if a.Name == "" || a.Why == "" || a.Status == api.MajorOutage || a.Status == api.PartialOutage {
					t.Errorf("alternative %+v", a)
				}
			}
			if tt.want.alternatives != nil && !slices.Equal(alts, tt.want.alternatives) && (len(alts) > 0 || len(tt.want.alternatives) > 0) {
				t.Errorf("alternatives %v, want %v", alts, tt.want.alternatives)
			}
			sources := map[string]bool{}
			found := tt.want.says == ""
			for _, e := range v.Evidence {
				sources[e.Source] = true
				found = found || strings.Contains(e.Says, tt.want.says)
				if e.AgeSeconds < 0 || e.Says == "" {
					t.Errorf("evidence %+v", e)
				}
			}
			if !found || len(sources) != 3 {
				t.Errorf("evidence %+v: want all three sources and one saying %q", v.Evidence, tt.want.says)
			}
		})
	}
}

// TestCheckVerdict: the status in words, where it came from, the live
// latency, and how stale or future-dated data is said.
func TestCheckVerdict(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, q string
		now     time.Duration // after genTime
		level   string
		basis   api.Basis
		detail  string // in the verdict's detail; "" for none
		latency bool
		dataAge int
	}{
		{"up, with our latency", "anthropic", time.Minute, "up", api.BasisOfficial, "", true, 60},
		{"degraded", "openai", time.Minute, "degraded", api.BasisOfficial, "", true, 60},
		{"our probes overrule the page", "cohere", time.Minute, "down", api.BasisProbe, "while the official status page says operational", true, 60},
		{"no status page, the host answers", "mistral", time.Minute, "unknown", api.BasisProbe,
			"has no status page that a program can read; our probe only shows whether its API host answers, which cannot show that the API works", true, 60},
		{"the page unreadable, the host answers", "deepgram", time.Minute, "unknown", api.BasisProbe,
			"could not be read this time; our probe only shows whether its API host answers", true, 60},
		{"the page unreadable, its last word stands in", "assemblyai", time.Minute, "up", api.BasisOfficial,
			"could not be read this time; the status is the page's last word, at most 15 minutes old", true, 60},
		{"no status page, our completions answer", "groq", time.Minute, "up", api.BasisMeasured,
			"has no status page that a program can read; the status is our own streamed completions of its models'", true, 60},
		{"our completions overrule the page", "deepseek", time.Minute, "degraded", api.BasisMeasured, "Our completions fail while the official status page says operational", true, 60},
		{"stale", "anthropic", 16 * time.Minute, "stale", api.BasisOfficial, "", true, 960},
		{"from the future, within the skew allowance", "anthropic", -time.Minute, "up", api.BasisOfficial, "", true, 0},
		{"from the future, beyond it", "anthropic", -time.Hour, "stale", api.BasisOfficial, "", true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := testCatalog(t)
			now := genTime.Add(tt.now)
			engine := New(cat, &fakeProber{at: now}, func() time.Time { return now }, FromServer)
			doc, err := engine.Check(testView(cat), Request{Query: tt.q})
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if !doc.Tracked || v.Level != tt.level || v.Headline == "" || v.Emoji == "" || (tt.level == "stale") != v.Stale {
				t.Errorf("verdict %+v, want level %s", v, tt.level)
			}
			if (tt.detail == "") != (v.Detail == "") || !strings.Contains(v.Detail, tt.detail) {
				t.Errorf("detail %q, want one saying %q", v.Detail, tt.detail)
			}
			if doc.Basis == nil || *doc.Basis != tt.basis {
				t.Errorf("basis %v, want %s", doc.Basis, tt.basis)
			}
			if (doc.LatencyMs != nil) != tt.latency || (doc.LatencyCheckedAt != nil && !doc.LatencyCheckedAt.Equal(now)) {
				t.Errorf("latency %v at %v", doc.LatencyMs, doc.LatencyCheckedAt)
			}
			if v.Stale && tt.now > 0 && !strings.Contains(v.Headline, api.HumanDuration(tt.now)+" ago") {
				t.Errorf("stale headline %q does not say %s ago", v.Headline, api.HumanDuration(tt.now))
			}
			if v.DataAgeSeconds == nil || *v.DataAgeSeconds != tt.dataAge {
				t.Errorf("data age %v, want %d", v.DataAgeSeconds, tt.dataAge)
			}
		})
	}
}

// Stale data lowers every row's confidence but the rows about stale data.
func TestCheckStaleLowersConfidence(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	now := genTime.Add(16 * time.Minute)
	engine := New(cat, &fakeProber{at: now}, func() time.Time { return now }, FromServer)
	for _, tt := range []struct{ error, action, confidence string }{
		{"", "retry", "low"},
		{"401", "fix_client", "low"},
		{"529", "retry", "low"},
	} {
		d, err := engine.Check(testView(cat), Request{Query: "anthropic", Error: tt.error})
		if err != nil || d.Verdict.Action != tt.action || d.Verdict.Confidence != tt.confidence {
			t.Errorf("stale, error %q: %s/%s, %v; want %s/%s", tt.error, d.Verdict.Action, d.Verdict.Confidence, err, tt.action, tt.confidence)
		}
	}
}

// Without a live prober (or for a service with no probe URL), our probes'
// word is the snapshot's: failing while they overrule the page.
func TestCheckWithoutLiveProbe(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	engine := New(cat, nil, func() time.Time { return genTime.Add(time.Minute) }, FromServer)
	for q, action := range map[string]string{"cohere": "failover", "anthropic": "proceed"} {
		doc, err := engine.Check(testView(cat), Request{Query: q, Error: "503"})
		if err != nil {
			t.Fatal(err)
		}
		if doc.LatencyMs != nil || !slices.ContainsFunc(doc.Verdict.Evidence, func(e api.Evidence) bool { return strings.Contains(e.Says, "probe") }) {
			t.Errorf("%s: latency %v, evidence %+v", q, doc.LatencyMs, doc.Verdict.Evidence)
		}
		if q == "cohere" && doc.Verdict.Action != action {
			t.Errorf("%s: action %s, want %s", q, doc.Verdict.Action, action)
		}
	}
}

// An untracked query gets no advice and no service data, only suggestions;
// nothing is probed for it.
func TestCheckUntracked(t *testing.T) {
	t.Parallel()
	engine, view, prober := newTestEngine(t)
	// GitHub itself is not tracked (only Copilot, a part of its page): its
	// name and domain suggest GitHub Copilot, but never answer with it.
	for q, suggestion := range map[string]string{"opneai": "OpenAI", "example.com": "", "http://127.0.0.1:9/": "", "anthropc": "Anthropic",
		"github": "GitHub Copilot", "GitHub": "GitHub Copilot", "github.com": "GitHub Copilot", "https://github.com/pulls": "GitHub Copilot"} {
		doc, err := engine.Check(view, Request{Query: q, Error: "500"})
		if err != nil {
			t.Fatal(err)
		}
		v := doc.Verdict
		if doc.Tracked || doc.Service != nil || doc.Status != nil || doc.Basis != nil || doc.LatencyMs != nil || v.Level != "untracked" ||
			v.Action != "" || v.Blame != "" || v.RetryAfterSeconds != nil || v.Evidence == nil || len(v.Evidence) != 0 || v.Alternatives == nil {
			t.Errorf("%q: %+v", q, doc)
		}
		if suggestion != "" && !slices.Contains(v.Suggestions, suggestion) {
			t.Errorf("%q: suggestions %v, want %q among them", q, v.Suggestions, suggestion)
		}
	}
	// A service of the catalog that the snapshot does not hold is untracked too.
	delete(view.summaries, "anthropic")
	if doc, _ := engine.Check(view, Request{Query: "anthropic"}); doc.Tracked {
		t.Errorf("a service missing from the snapshot: %+v", doc)
	}
	if n := prober.probes.Load(); n != 0 {
		t.Errorf("%d probes for untracked queries", n)
	}
}

// A snapshot written before statuses had a basis gives none: the check says
// null rather than guess one.
func TestCheckBasisOfAnOlderSnapshot(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	sum := view.summaries["anthropic"]
	sum.Basis = ""
	view.summaries["anthropic"] = sum
	doc, err := engine.Check(view, Request{Query: "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Status == nil || *doc.Status != api.Operational || doc.Basis != nil {
		t.Errorf("status %v, basis %v; want operational with a null basis", doc.Status, doc.Basis)
	}
}

func TestCheckRefusesBadInput(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	for _, tt := range []struct{ q, error, param string }{
		{"", "", "q"},
		{strings.Repeat("a", MaxQuery+1), "", "q"},
		{"\xff\xfe", "", "q"},
		{"openai", "600", "error"},
		{"openai", "TIMEOUT", "error"},
		{"openai", "429 ", "error"},
	} {
		_, err := engine.Check(view, Request{Query: tt.q, Error: tt.error})
		var bad *InputError
		if !errors.As(err, &bad) || bad.Param != tt.param || bad.Detail == "" {
			t.Errorf("q=%.20q error=%q: %v, want an input error on %s", tt.q, tt.error, err, tt.param)
		}
	}
	if _, err := engine.Check(view, Request{Query: strings.Repeat("a", MaxQuery)}); err != nil {
		t.Errorf("a %d-byte q: %v", MaxQuery, err)
	}
}

// TestCheckOwnNetworkDown: when our probe of a service fails and so do most
// of our probes of other providers' hosts, the checker's network is down:
// the verdict never blames the provider on our probe's word, and says so.
func TestCheckOwnNetworkDown(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	everyURL := []string{}
	for _, svc := range cat.Services {
		everyURL = append(everyURL, svc.ProbeURL)
	}
	for _, tt := range []struct {
		q, error string
		vantage  Vantage
		action   string
		blame    string
	}{
		{"together", "connection", FromServer, "retry", api.BlameUnknown},
		{"together", "timeout", FromCaller, "retry", api.BlameClient},
		{"anthropic", "", FromServer, "proceed", api.BlameUnknown}, // the page's word stands
		{"anthropic", "529", FromServer, "retry", api.BlameProvider},
		{"openai", "529", FromServer, "failover", api.BlameProvider}, // the page's open incident stands
	} {
		t.Run(tt.q+"/"+tt.error, func(t *testing.T) {
			p := &fakeProber{at: genTime.Add(time.Minute), failing: everyURL}
			engine := New(cat, p, func() time.Time { return genTime.Add(time.Minute) }, tt.vantage)
			doc, err := engine.Check(testView(cat), Request{Query: tt.q, Error: tt.error})
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if v.Action != tt.action || v.Blame != tt.blame || (v.Blame == api.BlameProvider && v.Confidence == api.ConfidenceHigh && tt.q != "openai") {
				t.Errorf("verdict %s/%s/%s (%q), want %s/%s", v.Action, v.Blame, v.Confidence, v.Reason, tt.action, tt.blame)
			}
			if !slices.ContainsFunc(v.Evidence, func(e api.Evidence) bool { return strings.Contains(e.Says, "own network looks down") }) {
				t.Errorf("evidence does not say our network is down: %+v", v.Evidence)
			}
			if n := p.probes.Load(); n != 1+egressHosts {
				t.Errorf("%d probes, want the service's and %d others'", n, egressHosts)
			}
		})
	}
}

// freshFakeProber is a fakeProber whose results for the URLs in fresh are
// held, as a warm Cache holds them: Fresh returns them without a probe.
type freshFakeProber struct {
	*fakeProber
	fresh map[string]bool
}

func (p *freshFakeProber) Fresh(url string) (Live, bool) {
	if !p.fresh[url] {
		return Live{}, false
	}
	if slices.Contains(p.failing, url) {
		return Live{Probe: api.ProbeSource{State: api.ProbeFailed, Error: "connection refused"}, At: p.at}, true
	}
	return Live{Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(120.0), HTTPStatus: 401}, At: p.at}, true
}

// TestEgressReadsHeldResults: once our probe of a service failed, the
// other providers' hosts the egress check weighs are read from what the
// prober holds, and only the ones it does not hold are probed; the
// verdict is the same as with every host probed.
func TestEgressReadsHeldResults(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	anthropic, _ := cat.Lookup("anthropic")
	others := egressURLs(cat)[anthropic.ProbeURL]
	if len(others) != egressHosts {
		t.Fatalf("egress hosts of Anthropic's probe: %v, want %d", others, egressHosts)
	}
	for _, tt := range []struct {
		name        string
		fresh       []string
		othersDown  bool
		wantProbes  int64
		wantOwnDown bool
	}{
		{"all held, all down", others, true, 1, true},
		{"all held, all up", others, false, 1, false},
		{"one held, all down", others[:1], true, 1 + egressHosts - 1, true},
		{"none held, all down", nil, true, 1 + egressHosts, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			failing := []string{anthropic.ProbeURL}
			if tt.othersDown {
				failing = append(failing, others...)
			}
			p := &freshFakeProber{fakeProber: &fakeProber{at: genTime.Add(time.Minute), failing: failing}, fresh: map[string]bool{}}
			for _, u := range tt.fresh {
				p.fresh[u] = true
			}
			engine := New(cat, p, func() time.Time { return genTime.Add(time.Minute) }, FromServer)
			doc, err := engine.Check(testView(cat), Request{Query: "anthropic"})
			if err != nil {
				t.Fatal(err)
			}
			ownDown := slices.ContainsFunc(doc.Verdict.Evidence, func(e api.Evidence) bool { return strings.Contains(e.Says, "own network looks down") })
			if ownDown != tt.wantOwnDown {
				t.Errorf("evidence says our network is down: %v, want %v (%+v)", ownDown, tt.wantOwnDown, doc.Verdict.Evidence)
			}
			if n := p.probes.Load(); n != tt.wantProbes {
				t.Errorf("%d probes, want %d", n, tt.wantProbes)
			}
		})
	}
}

// TestEgressURLs: the hosts weighed for each probe URL are the first
// egressHosts of the catalog's, in its order, on another host.
func TestEgressURLs(t *testing.T) {
	t.Parallel()
	var cat catalog.Catalog
	for i, u := range []string{"https://a.example/v1", "https://a.example/v2", "https://b.example/", "", "https://c.example/", "https://d.example/"} {
		cat.Services = append(cat.Services, catalog.Service{Slug: fmt.Sprintf("s%d", i), ProbeURL: u})
	}
	got := egressURLs(cat)
	want := map[string][]string{
		"https://a.example/v1": {"https://b.example/", "https://c.example/", "https://d.example/"},
		"https://a.example/v2": {"https://b.example/", "https://c.example/", "https://d.example/"},
		"https://b.example/":   {"https://a.example/v1", "https://a.example/v2", "https://c.example/"},
		"https://c.example/":   {"https://a.example/v1", "https://a.example/v2", "https://b.example/"},
		"https://d.example/":   {"https://a.example/v1", "https://a.example/v2", "https://b.example/"},
	}
	if len(got) != len(want) {
		t.Fatalf("egress of %d probe URLs, want %d: %v", len(got), len(want), got)
	}
	for u, w := range want {
		if !slices.Equal(got[u], w) {
			t.Errorf("egress of %s: %v, want %v", u, got[u], w)
		}
	}
}

// codeOf reads the provider's error code out of an error body the way the
// docs tell a caller to: error.code, else error.status, else error.type
// (the body itself where it has no "error" object), skipping numeric values
// (OpenRouter's and Google's codes are the HTTP status again).
func codeOf(t *testing.T, body []byte) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	e, ok := doc["error"].(map[string]any)
	if !ok {
		e = doc
	}
	for _, field := range []string{"code", "status", "type"} {
		if s, ok := e[field].(string); ok && s != "" && strings.Trim(s, "0123456789") != "" {
			return s
		}
	}
	return ""
}

// TestErrorBodies: the real error bodies of testdata/errors, read as a
// caller reads them and asked with the HTTP status they came with, get the
// advice their provider's documentation implies: a quota is fixed, never
// retried; an overload is the provider's; a model that does not exist is
// the caller's.
func TestErrorBodies(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	for _, tt := range []struct {
		file, q, error string
		code           string // what codeOf must read
		action, blame  string
	}{
		{"openai-insufficient_quota.json", "openai", "429", "insufficient_quota", "fix_client", "client"},
		// openai has an open major incident here: the code still says it is the key's limit.
		{"openai-rate_limit_exceeded.json", "openai", "429", "rate_limit_exceeded", "retry", "client"},
		{"openai-usage_limit_reached.json", "codex", "429", "usage_limit_reached", "fix_client", "client"},
		{"openai-model_not_found.json", "openai", "404", "model_not_found", "fix_client", "client"},
		{"openai-context_length_exceeded.json", "openai", "400", "context_length_exceeded", "fix_client", "client"},
		{"openai-server_error-direct.json", "openai", "500", "server_error", "failover", "provider"},
		{"anthropic-overloaded_error.json", "anthropic", "529", "overloaded_error", "failover", "provider"},
		{"anthropic-rate_limit_error.json", "anthropic", "429", "rate_limit_error", "retry", "client"},
		{"anthropic-api_error.json", "anthropic", "500", "api_error", "retry", "provider"},
		{"google-UNAVAILABLE.json", "gemini", "503", "UNAVAILABLE", "failover", "provider"},
		{"google-RESOURCE_EXHAUSTED-402-prepay_depleted.json", "gemini", "402", "RESOURCE_EXHAUSTED", "fix_client", "client"},
		{"google-RESOURCE_EXHAUSTED-429-per_minute_quota.json", "gemini", "429", "RESOURCE_EXHAUSTED", "retry", "client"},
		{"groq-model_decommissioned.json", "groq", "400", "model_decommissioned", "fix_client", "client"},
		{"mistral-rate_limited-1300.json", "mistral", "429", "rate_limited", "retry", "client"},
		{"azure-openai-DeploymentNotFound.json", "azure openai", "404", "DeploymentNotFound", "fix_client", "client"},
		// DeepSeek puts invalid_request_error in error.code whatever the
		// error: the status picks the row.
		{"deepseek-insufficient_balance.json", "deepseek", "402", "invalid_request_error", "fix_client", "client"},
		{"deepseek-invalid_request_error-401.json", "deepseek", "401", "invalid_request_error", "fix_client", "client"},
		{"deepseek-invalid_request_error-400.json", "deepseek", "400", "invalid_request_error", "fix_client", "client"},
		{"together-model_not_available.json", "together", "400", "model_not_available", "fix_client", "client"},
		// Its status is not in the capture: the code alone is the key's limit.
		{"together-credit_limit.json", "together", "", "credit_limit", "retry", "client"},
		{"cerebras-request_quota_exceeded.json", "cerebras", "429", "request_quota_exceeded", "retry", "client"},
		// No table: the HTTP status decides, and 402 is always payment.
		{"openrouter-402-insufficient_credits.json", "openrouter", "402", "", "fix_client", "client"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "errors", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			code := codeOf(t, body)
			if code != tt.code {
				t.Fatalf("code read as %q, want %q", code, tt.code)
			}
			doc, err := engine.Check(view, Request{Query: tt.q, Error: tt.error, Code: code})
			if err != nil {
				t.Fatal(err)
			}
			if v := doc.Verdict; v.Action != tt.action || v.Blame != tt.blame {
				t.Errorf("verdict %s/%s (%q), want %s/%s", v.Action, v.Blame, v.Reason, tt.action, tt.blame)
			}
			if code != "" && !slices.ContainsFunc(doc.Verdict.Evidence, func(e api.Evidence) bool {
				return e.Source == api.EvidenceCaller && strings.Contains(e.Says, code) && !strings.Contains(e.Says, "not in our table")
			}) {
				t.Errorf("no caller evidence naming %s as a code of the table: %+v", code, doc.Verdict.Evidence)
			}
		})
	}
}

// TestCheckCodes: the cases — a quota is fixed and never retried,
// a transient rate limit waits the caller's Retry-After, an overload is the
// provider's; an unknown code is said to be unknown; a minor incident does
// not make a 429 the provider's.
func TestCheckCodes(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	twenty := 20
	for _, tt := range []struct {
		name     string
		req      Request
		action   string
		blame    string
		retry    int
		evidence string
	}{
		{"quota", Request{Query: "openai", Error: "429", Code: "insufficient_quota"}, "fix_client", "client", 0, "quota or billing limit"},
		{"rate limit with Retry-After", Request{Query: "anthropic", Error: "429", Code: "rate_limit_error", RetryAfter: &twenty}, "retry", "client", 20, "transient rate limit"},
		{"Retry-After without a code", Request{Query: "anthropic", Error: "503", RetryAfter: &twenty}, "retry", "provider", 20, ""},
		{"overloaded", Request{Query: "anthropic", Error: "529", Code: "overloaded_error"}, "failover", "provider", 0, "overloaded"},
		{"unknown code: the status decides", Request{Query: "anthropic", Error: "429", Code: "teapot_error"}, "retry", "client", 30, "not in our table"},
		{"a code of a service without a table", Request{Query: "pinecone", Error: "503", Code: "whatever"}, "retry", "provider", 10, "not in our table"},
		// A code without error= (an SDK's or a gRPC error carries no HTTP
		// status) is read on its own: its usual row, the status the
		// provider sends it with most, and the others said.
		{"code alone, two rows: the usual one", Request{Query: "gemini", Code: "RESOURCE_EXHAUSTED"}, "retry", "client", 30, "with a 402 it is a quota or billing limit"},
		{"code alone, two rows: says which it read", Request{Query: "gemini", Code: "RESOURCE_EXHAUSTED"}, "retry", "client", 30, "its meaning with a 429, the status Google Gemini API sends it with most"},
		{"code alone, one row", Request{Query: "anthropic", Code: "rate_limit_error"}, "retry", "client", 30, "transient rate limit"},
		{"code alone, overloaded", Request{Query: "anthropic", Code: "overloaded_error"}, "failover", "provider", 0, "the provider being overloaded"},
		{"timeout with a code: no status either", Request{Query: "gemini", Error: "timeout", Code: "RESOURCE_EXHAUSTED"}, "retry", "client", 30, "sends it with most"},
		{"the status picks the other row", Request{Query: "gemini", Error: "402", Code: "RESOURCE_EXHAUSTED"}, "fix_client", "client", 0, "quota or billing limit"},
		{"the status picks the row", Request{Query: "gemini", Error: "429", Code: "RESOURCE_EXHAUSTED"}, "retry", "client", 30, "transient rate limit"},
		// Bedrock's codes are the AWS SDK's exception names.
		{"Bedrock throttling, by its exception", Request{Query: "bedrock", Code: "ThrottlingException"}, "retry", "client", 30, "transient rate limit"},
		{"Bedrock unavailable, by its exception", Request{Query: "bedrock", Code: "ServiceUnavailableException"}, "failover", "provider", 0, "the provider being overloaded"},
		{"DeepSeek's one code alone: its usual row, a 400", Request{Query: "deepseek", Code: "invalid_request_error"}, "fix_client", "client", 0, "with a 402 it is a quota or billing limit"},
		{"DeepSeek's one code with a 402", Request{Query: "deepseek", Error: "402", Code: "invalid_request_error"}, "fix_client", "client", 0, "DeepSeek's API, a quota or billing limit"},
		{"DeepSeek's 503 is its servers overloaded", Request{Query: "deepseek", Error: "503"}, "failover", "provider", 0, "Your HTTP status 503 is, for DeepSeek's API, the provider being overloaded"},
		// A status a provider gives a meaning of its own reads as that.
		{"Groq's 498 is its flex tier out of capacity", Request{Query: "groq", Error: "498"}, "failover", "provider", 0, "Your HTTP status 498 is, for Groq's API, the provider being overloaded"},
		{"Groq's 498 with its code", Request{Query: "groq", Error: "498", Code: "capacity_exceeded"}, "failover", "provider", 0, "the provider being overloaded"},
		{"Groq's 400 is still the request", Request{Query: "groq", Error: "400"}, "fix_client", "client", 0, ""},
		{"Groq's spend cap is no bad request", Request{Query: "groq", Error: "400", Code: "blocked_api_access"}, "fix_client", "client", 0, "quota or billing limit"},
		{"Together's 403 is a request too long for the context", Request{Query: "together", Error: "403"}, "fix_client", "client", 0, "Your HTTP status 403 is, for Together AI's API, a request refused as it stands"},
		{"a listed code beats the status row", Request{Query: "together", Error: "403", Code: "model_not_available"}, "fix_client", "client", 0, "a model that does not exist"},
		{"Fireworks' 412 is the account, not the request", Request{Query: "fireworks", Error: "412"}, "fix_client", "client", 0, "Your HTTP status 412 is, for Fireworks AI's API, a quota or billing limit"},
		{"OpenRouter's 403 is its moderation, not the key", Request{Query: "openrouter", Error: "403"}, "fix_client", "client", 0, "Your HTTP status 403 is, for OpenRouter's API, a request refused as it stands"},
		// ElevenLabs' 401 is its quota as well as the key, and its 429
		// the plan's concurrency or its own capacity, as detail.status says.
		{"ElevenLabs' quota behind a 401", Request{Query: "elevenlabs", Error: "401", Code: "quota_exceeded"}, "fix_client", "client", 0, "quota or billing limit"},
		{"ElevenLabs' concurrency cap", Request{Query: "elevenlabs", Error: "429", Code: "too_many_concurrent_requests"}, "fix_client", "client", 0, "a cap on requests in flight per key"},
		{"ElevenLabs busy", Request{Query: "elevenlabs", Error: "429", Code: "system_busy"}, "wait", "provider", 30, "the provider being overloaded"},
		{"Cohere's 498 is an invalid token", Request{Query: "cohere", Error: "498"}, "fix_client", "client", 0, "Your HTTP status 498 is, for Cohere's API, a credentials or permission error"},
		// The test view has Cohere down: a cancelled request then reads
		// as a timeout during an outage, not as a request to fix.
		{"Cohere's 499 is a cancelled request, tried again", Request{Query: "cohere", Error: "499"}, "failover", "provider", 0, "Your HTTP status 499 is, for Cohere's API, a timeout"},
		// Together's page once called its 500 "Invalid Request"; today it
		// is "an issue on our servers": never the caller's to fix.
		{"Together's 500 is its servers' error", Request{Query: "together", Error: "500"}, "retry", "provider", 10, "Our probe of its API answered"},
		{"Together's 504 is its engines overloaded", Request{Query: "together", Error: "504"}, "failover", "provider", 0, "Your HTTP status 504 is, for Together AI's API, the provider being overloaded"},
		// The caller's region, not the key.
		{"OpenAI's unsupported region", Request{Query: "openai", Error: "403", Code: "unsupported_country_region_territory"}, "fix_client", "client", 0, "a country or region the provider does not serve"},
		{"Mistral's unknown model", Request{Query: "mistral", Error: "400", Code: "unknown_model"}, "fix_client", "client", 0, "a model that does not exist"},
		// The Gemini Interactions API's codes: a 429 is a daily quota or
		// a per-minute limit, as the code says.
		{"Gemini's daily quota is no rate limit", Request{Query: "gemini", Error: "429", Code: "quota_exceeded"}, "fix_client", "client", 0, "quota or billing limit"},
		{"Gemini's per-minute limit", Request{Query: "gemini", Error: "429", Code: "rate_limit_exceeded"}, "retry", "client", 30, "transient rate limit"},
		{"Gemini's model not found", Request{Query: "gemini", Error: "404", Code: "model_not_found"}, "fix_client", "client", 0, "a model that does not exist"},
		{"Gemini's CANCELLED is the caller closing", Request{Query: "gemini", Error: "499", Code: "CANCELLED"}, "fix_client", "client", 0, "a request refused as it stands"},
		// OpenAI's Python library raises its errors by type, as an AWS
		// SDK does Bedrock's.
		{"OpenAI's RateLimitError alone", Request{Query: "openai", Code: "RateLimitError"}, "retry", "client", 30, "transient rate limit"},
		{"Perplexity's SDK exception", Request{Query: "perplexity", Code: "RateLimitError"}, "retry", "client", 30, "transient rate limit"},
		{"Cerebras' 402 by its error type alone", Request{Query: "cerebras", Code: "PaymentRequired"}, "fix_client", "client", 0, "quota or billing limit"},
		// xAI's SDK raises gRPC statuses, which carry no HTTP status.
		{"xAI's DATA_LOSS is an image it could not fetch", Request{Query: "xai", Code: "DATA_LOSS"}, "fix_client", "client", 0, "a request refused as it stands"},
		{"xAI's RESOURCE_EXHAUSTED", Request{Query: "grok", Code: "RESOURCE_EXHAUSTED"}, "retry", "client", 30, "transient rate limit"},
		{"OpenAI's WebSocket mode state lost", Request{Query: "openai", Error: "400", Code: "previous_response_not_found"}, "fix_client", "client", 0, "a request refused as it stands"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := engine.Check(view, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			v, retry := doc.Verdict, 0
			if v.RetryAfterSeconds != nil {
				retry = *v.RetryAfterSeconds
			}
			if v.Action != tt.action || v.Blame != tt.blame || retry != tt.retry {
				t.Errorf("verdict %s/%s retry %d (%q), want %s/%s retry %d", v.Action, v.Blame, retry, v.Reason, tt.action, tt.blame, tt.retry)
			}
			if tt.evidence != "" && !slices.ContainsFunc(v.Evidence, func(e api.Evidence) bool { return strings.Contains(e.Says, tt.evidence) }) {
				t.Errorf("no evidence saying %q: %+v", tt.evidence, v.Evidence)
			}
			if (tt.req.Code != "") != (doc.Code != nil) || (tt.req.RetryAfter != nil) != (doc.RetryAfter != nil) {
				t.Errorf("code and retryAfter echoed as %v, %v", doc.Code, doc.RetryAfter)
			}
		})
	}

	// OpenAI's unsupported region names where the call comes from, never
	// the key a plain 403 would blame.
	doc, err := engine.Check(view, Request{Query: "openai", Error: "403", Code: "unsupported_country_region_territory"})
	if err != nil {
		t.Fatal(err)
	}
	if r := doc.Verdict.Reason; !strings.Contains(r, "country or region your request comes from") || !strings.Contains(r, "not your key") ||
		strings.Contains(r, "check the API key") {
		t.Errorf("an unsupported region reads %q", r)
	}

	// A minor incident is cited, but a 429 stays the caller's rate limit.
	cat := testCatalog(t)
	minor := testView(cat)
	minor.incidents = append(minor.incidents, api.Incident{ID: "anthropic-9", Service: "anthropic", Headline: "Slightly elevated latency",
		Severity: api.Minor, StartedAt: genTime.Add(-time.Hour), Status: "investigating", Source: api.SourceOfficial})
	api.SortIncidents(minor.incidents)
	doc, err = engine.Check(minor, Request{Query: "anthropic", Error: "429"})
	if err != nil || doc.Verdict.Action != "retry" || doc.Verdict.Blame != "client" {
		t.Errorf("429 during a minor incident: %s/%s %v, want retry/client", doc.Verdict.Action, doc.Verdict.Blame, err)
	}

	for _, bad := range []Request{{Query: "openai", Code: "a b"}, {Query: "openai", Code: strings.Repeat("x", 65)}, {Query: "openai", RetryAfter: new(-1)}, {Query: "openai", RetryAfter: new(MaxRetryAfter + 1)}} {
		var ie *InputError
		if _, err := engine.Check(view, bad); !errors.As(err, &ie) || (ie.Param != "code" && ie.Param != "retryAfter") {
			t.Errorf("%+v: %v, want an input error on code or retryAfter", bad, err)
		}
	}
}

// TestCheckUsesTheFresherProbe: a live probe cached before the latest build
// gives way to that build's probe, so that after a recovery /check does not
// say "our probe failed" for the cache's lifetime; an older or discarded
// build probe does not.
func TestCheckUsesTheFresherProbe(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	for _, tt := range []struct {
		name    string
		built   Live
		latency bool // the answer carries a latency: an ok probe was used
	}{
		{"a newer ok build probe wins", Live{Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(90.0), HTTPStatus: 401}, At: genTime.Add(50 * time.Second)}, true},
		{"an older build probe does not", Live{Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: new(90.0)}, At: genTime.Add(10 * time.Second)}, false},
		{"a discarded build probe says nothing", Live{Probe: api.ProbeSource{State: api.ProbeDiscarded}, At: genTime.Add(50 * time.Second)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The live probe of groq failed 40 s after the snapshot and is cached.
			var groqURL []string
			for _, svc := range cat.Services {
				if svc.Slug == "groq" {
					groqURL = append(groqURL, svc.ProbeURL)
				}
			}
			p := &fakeProber{at: genTime.Add(40 * time.Second), failing: groqURL}
			engine := New(cat, p, func() time.Time { return genTime.Add(time.Minute) }, FromServer)
			view := testView(cat)
			view.probes = map[string]Live{"groq": tt.built}
			doc, err := engine.Check(view, Request{Query: "groq"})
			if err != nil {
				t.Fatal(err)
			}
			if (doc.LatencyMs != nil) != tt.latency {
				t.Errorf("latency %v, want one: %v (verdict %s: %q)", doc.LatencyMs, tt.latency, doc.Verdict.Action, doc.Verdict.Reason)
			}
			if tt.latency && (doc.Verdict.Action != api.ActionProceed || !doc.LatencyCheckedAt.Equal(tt.built.At)) {
				t.Errorf("verdict %s (%q) at %v, want proceed on the build's probe", doc.Verdict.Action, doc.Verdict.Reason, doc.LatencyCheckedAt)
			}
		})
	}
}

// TestCheckCitesMeasured: the verdict cites our completions as evidence,
// source "measured", with the age of the latest one.
func TestCheckCitesMeasured(t *testing.T) {
	t.Parallel()
	engine, view, _ := newTestEngine(t)
	doc, err := engine.Check(view, Request{Query: "deepseek", Error: "503"})
	if err != nil {
		t.Fatal(err)
	}
	var cited []api.Evidence
	for _, e := range doc.Verdict.Evidence {
		if e.Source == api.EvidenceMeasured {
			cited = append(cited, e)
		}
	}
	want := "Our streamed completions of deepseek/deepseek-chat read degraded: the latest overloaded (HTTP 503, server_is_overloaded); in the last hour 3 of 5 failed, time to first token p50 412 ms."
	if len(cited) != 1 || cited[0].Says != want || cited[0].AgeSeconds != 120 {
		t.Fatalf("measured evidence %+v, want %q 120 s old", cited, want)
	}
	if doc.Basis == nil || *doc.Basis != api.BasisMeasured {
		t.Fatalf("basis %v", doc.Basis)
	}
	// A service measured by nobody cites no such evidence.
	doc, _ = engine.Check(view, Request{Query: "anthropic"})
	for _, e := range doc.Verdict.Evidence {
		if e.Source == api.EvidenceMeasured {
			t.Fatalf("anthropic cites %+v", e)
		}
	}
}

// At a vantage point, a caller's error with only the caller's region
// failing is advised to route elsewhere (blame network), never to fail
// over to another provider; failing everywhere stays the provider's; and
// the evidence lists what each vantage saw.
func TestCheckRegional(t *testing.T) {
	t.Parallel()
	cat := testCatalog(t)
	svc := cat.Services[slices.IndexFunc(cat.Services, func(s catalog.Service) bool { return s.Slug == "openrouter" })]
	ok := func(name string) api.VantagePoint {
		return api.VantagePoint{Name: name, State: api.ProbeOK, LatencyMs: new(40.0), At: genTime}
	}
	down := func(name string) api.VantagePoint {
		return api.VantagePoint{Name: name, State: api.ProbeFailed, At: genTime}
	}
	tests := []struct {
		name     string
		here     string // the engine's vantage
		live     string // the live probe from here: "up", "down" or "" (no prober)
		points   []api.VantagePoint
		errParam string
		action   string
		blame    string
	}{
		{"only the caller's region fails", "b", "down", []api.VantagePoint{ok("builder"), ok("a"), down("b"), ok("c")}, "connection", api.ActionReroute, api.BlameNetwork},
		{"a 503 from the caller's region only", "b", "down", []api.VantagePoint{ok("builder"), ok("a"), down("b")}, "503", api.ActionReroute, api.BlameNetwork},
		{"the live probe answers again here", "b", "up", []api.VantagePoint{ok("builder"), down("b")}, "connection", api.ActionRetry, api.BlameUnknown},
		{"no live probe: the build's word on b", "b", "", []api.VantagePoint{ok("builder"), ok("a"), down("b")}, "timeout", api.ActionReroute, api.BlameNetwork},
		// One other vantage could be one vantage's mistake, or one writer's:
		// the build needs two to call it regional, and so does /check.
		{"one other vantage reaching it is too few", "b", "down", []api.VantagePoint{ok("a"), down("b")}, "connection", api.ActionFailover, api.BlameProvider},
		{"failing from every vantage: the provider", "b", "down", []api.VantagePoint{down("builder"), down("a"), down("b")}, "connection", api.ActionFailover, api.BlameProvider},
		{"no vantage of its own: as before", "", "down", []api.VantagePoint{ok("builder"), ok("a"), down("b")}, "connection", api.ActionFailover, api.BlameProvider},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			view := testView(cat)
			view.vantages = map[string]api.Vantages{svc.Slug: {Reading: api.VantageRegional, Points: tt.points,
				Detail: "The API host fails from b while builder, a reach it: a regional or network path problem seen from b, not a service outage."}}
			var prober Prober
			switch tt.live {
			case "up":
				prober = &fakeProber{at: genTime.Add(time.Minute)}
			case "down":
				prober = &fakeProber{at: genTime.Add(time.Minute), failing: []string{svc.ProbeURL}}
			}
			engine := New(cat, prober, func() time.Time { return genTime.Add(time.Minute) }, FromServer).AtVantage(tt.here)
			doc, err := engine.Check(view, Request{Query: svc.Slug, Error: tt.errParam})
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			if v.Action != tt.action || v.Blame != tt.blame {
				t.Errorf("advice %s/%s (%s), want %s/%s", v.Action, v.Blame, v.Reason, tt.action, tt.blame)
			}
			var seen []string
			for _, e := range v.Evidence {
				if e.Source == api.EvidenceVantage {
					seen = append(seen, e.Says)
				}
			}
			if len(seen) < len(tt.points) || !strings.Contains(strings.Join(seen, " "), "From "+tt.points[len(tt.points)-1].Name) {
				t.Errorf("vantage evidence %q, want one line per vantage", seen)
			}
		})
	}
}
