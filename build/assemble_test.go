package build

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// The combining rules of Assemble, one observation against one history at
// a time, without any server: see assemble.go for the rules.

var asmNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

var asmCatalog = catalog.Catalog{Services: []catalog.Service{{Slug: "svc", Name: "Svc", StatusPage: "https://status.svc.example"}}}

func feedOK(st api.Status) api.FeedSource {
	return api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedOK, Status: st}
}

var (
	feedFailed = api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedError, Error: "HTTP 403", Failure: api.FailureHTTP}
	feedNone   = api.FeedSource{Format: catalog.FormatNone, State: api.FeedNone}
	probeOK    = api.ProbeSource{State: api.ProbeOK, LatencyMs: new(12.5), HTTPStatus: 401}
	probeDown  = api.ProbeSource{State: api.ProbeFailed, Error: "connection refused"}
	probeNone  = api.ProbeSource{State: api.ProbeNone}
)

// assembleOne runs one cycle of one service on history h at asmNow.
func assembleOne(h *history.History, o Observation) ServiceState {
	return Assemble(h, asmCatalog, map[string]Observation{"svc": o}, asmNow, zerolog.Nop())["svc"]
}

// withHistory returns a history whose one service is sh, checked a minute
// before asmNow with status last.
func withHistory(sh history.ServiceHistory) *history.History {
	h := history.New()
	if sh.LastStatus != "" {
		sh.LastChecked = asmNow.Add(-time.Minute)
	}
	h.Services["svc"] = &sh
	return h
}

func TestAssembleStatus(t *testing.T) {
	t.Parallel()
	failingSince := asmNow.Add(-2 * time.Minute)
	tests := []struct {
		name     string
		history  history.ServiceHistory
		obs      Observation
		want     api.Status
		basis    api.Basis
		disagree bool // a disagreement with the official page is published
		failed   int  // the consecutive failed probes counted afterwards
	}{
		{"page and probe agree", history.ServiceHistory{}, Observation{Feed: feedOK(api.Operational), Probe: probeOK},
			api.Operational, api.BasisOfficial, false, 0},
		{"the page's degraded wins over an answering probe", history.ServiceHistory{}, Observation{Feed: feedOK(api.Degraded), Probe: probeOK},
			api.Degraded, api.BasisOfficial, false, 0},
		{"second failed probe: the page's word holds", history.ServiceHistory{LastStatus: api.Operational, FailedProbes: 1, FailingSince: failingSince},
			Observation{Feed: feedOK(api.Operational), Probe: probeDown}, api.Operational, api.BasisOfficial, false, 2},
		{"third failed probe overrules a calm page", history.ServiceHistory{LastStatus: api.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(api.Operational), Probe: probeDown}, api.MajorOutage, api.BasisProbe, true, 3},
		{"third failed probe overrules a degraded page", history.ServiceHistory{LastStatus: api.Degraded, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(api.Degraded), Probe: probeDown}, api.MajorOutage, api.BasisProbe, true, 3},
		{"a page declaring an outage explains the failures", history.ServiceHistory{LastStatus: api.PartialOutage, FailedProbes: 5, FailingSince: failingSince},
			Observation{Feed: feedOK(api.PartialOutage), Probe: probeDown}, api.PartialOutage, api.BasisOfficial, false, 0},
		{"maintenance explains the failures", history.ServiceHistory{LastStatus: api.Maintenance, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(api.Maintenance), Probe: probeDown}, api.Maintenance, api.BasisOfficial, false, 0},
		{"page silent, third failed probe", history.ServiceHistory{LastStatus: api.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedFailed, Probe: probeDown}, api.MajorOutage, api.BasisProbe, false, 3},
		{"no page, third failed probe", history.ServiceHistory{LastStatus: api.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedNone, Probe: probeDown}, api.MajorOutage, api.BasisProbe, false, 3},
		{"page silent, a first failed probe is no outage, and keeps no earlier status", history.ServiceHistory{LastStatus: api.Degraded},
			Observation{Feed: feedFailed, Probe: probeDown}, api.Unknown, api.BasisProbe, false, 1},
		{"a failing page keeps its word for a while", history.ServiceHistory{LastStatus: api.MajorOutage,
			LastFeedStatus: api.MajorOutage, LastFeedAt: asmNow.Add(-5 * time.Minute)},
			Observation{Feed: feedFailed, Probe: probeOK}, api.MajorOutage, api.BasisOfficial, false, 0},
		{"…but not longer than MaxHold", history.ServiceHistory{LastStatus: api.MajorOutage,
			LastFeedStatus: api.MajorOutage, LastFeedAt: asmNow.Add(-history.MaxHold - time.Minute)},
			Observation{Feed: feedFailed, Probe: probeOK}, api.Unknown, api.BasisProbe, false, 0},
		{"no page, the probe answers", history.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeOK}, api.Unknown, api.BasisProbe, false, 0},
		{"neither page nor probe", history.ServiceHistory{}, Observation{Feed: feedFailed, Probe: probeNone}, api.Unknown, api.BasisNone, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := withHistory(tt.history)
			st := assembleOne(h, tt.obs)
			if st.Status != tt.want || st.Basis != tt.basis {
				t.Errorf("status %s (basis %s), want %s (%s)", st.Status, st.Basis, tt.want, tt.basis)
			}
			if (st.Sources.Disagreement != nil) != tt.disagree {
				t.Errorf("disagreement %+v, want one: %v", st.Sources.Disagreement, tt.disagree)
			}
			if d := st.Sources.Disagreement; d != nil && (d.Measured != st.Status || d.Official != tt.obs.Feed.Status || !d.Since.Equal(failingSince)) {
				t.Errorf("disagreement %+v: measured, official or since wrong", d)
			}
			sh := h.Services["svc"]
			if sh.FailedProbes != tt.failed {
				t.Errorf("failed probes %d, want %d", sh.FailedProbes, tt.failed)
			}
			if sh.LastStatus != st.Status || !sh.LastChecked.Equal(asmNow) {
				t.Errorf("history not recorded: %s at %s", sh.LastStatus, sh.LastChecked)
			}
			if probeIncident := sh.ProbeIncident != ""; probeIncident != (tt.failed >= api.ProbeIncidentAfter) {
				t.Errorf("probe incident %q after %d failures", sh.ProbeIncident, tt.failed)
			}
		})
	}
}

// Reachability alone never reads operational: where the page has no word
// (none to read, unreadable for longer than MaxHold, or a scope matching
// nothing), a host that answers our keyless probe is unknown; the page's
// last word stands in for up to MaxHold, inclusive; our own open incident
// turns an operational word to degraded. Each row is one observation.
func TestAssembleWithoutThePagesWord(t *testing.T) {
	t.Parallel()
	scopeLost := api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedError, Failure: api.FailureScope,
		Error: "none of the page's 6 components is in the scope of Svc: the page changed, or the scope needs updating"}
	said := func(st api.Status, ago time.Duration) history.ServiceHistory {
		return history.ServiceHistory{LastStatus: st, LastFeedStatus: st, LastFeedAt: asmNow.Add(-ago)}
	}
	outage := asmNow.Add(-10 * time.Minute) // our incident, opened then, still open
	open := func(sh history.ServiceHistory) history.ServiceHistory {
		sh.ProbeIncident = api.ProbeIncidentID("svc", outage)
		return sh
	}
	tests := []struct {
		name    string
		history history.ServiceHistory
		obs     Observation
		want    api.Status
		basis   api.Basis
	}{
		{"the page's word, the host answers", history.ServiceHistory{}, Observation{Feed: feedOK(api.Operational), Probe: probeOK},
			api.Operational, api.BasisOfficial},
		{"scope matches nothing, the host answers 401", history.ServiceHistory{}, Observation{Feed: scopeLost, Probe: probeOK},
			api.Unknown, api.BasisProbe},
		{"scope matches nothing, the page's last word is MaxHold old", said(api.Operational, history.MaxHold),
			Observation{Feed: scopeLost, Probe: probeOK}, api.Operational, api.BasisOfficial},
		{"scope matches nothing, the page's last word is older", said(api.Operational, history.MaxHold+time.Second),
			Observation{Feed: scopeLost, Probe: probeOK}, api.Unknown, api.BasisProbe},
		{"the page unreadable, its last word an outage", said(api.MajorOutage, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeOK}, api.MajorOutage, api.BasisOfficial},
		{"the page unreadable, its last word holds through a failed probe", said(api.Operational, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeDown}, api.Operational, api.BasisOfficial},
		{"the page unreadable, the host answers, no earlier word", history.ServiceHistory{LastStatus: api.Operational},
			Observation{Feed: feedFailed, Probe: probeOK}, api.Unknown, api.BasisProbe},
		{"the page unreadable, no probe, its last word", said(api.Degraded, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeNone}, api.Degraded, api.BasisOfficial},
		{"the page unreadable, no probe, its last word too old", said(api.Degraded, history.MaxHold+time.Second),
			Observation{Feed: feedFailed, Probe: probeNone}, api.Unknown, api.BasisNone},
		{"no page, the host answers", history.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeOK}, api.Unknown, api.BasisProbe},
		{"no page, no probe", history.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeNone}, api.Unknown, api.BasisNone},
		{"no page, the host answers after our outage", open(history.ServiceHistory{LastStatus: api.MajorOutage}),
			Observation{Feed: feedNone, Probe: probeOK}, api.Unknown, api.BasisProbe},
		{"the page's last word operational, the host answers after our outage", open(said(api.Operational, 5*time.Minute)),
			Observation{Feed: feedFailed, Probe: probeOK}, api.Degraded, api.BasisProbe},
		{"the page's last word operational, our incident open, a failed probe", open(said(api.Operational, 5*time.Minute)),
			Observation{Feed: feedFailed, Probe: probeDown}, api.Degraded, api.BasisProbe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := withHistory(tt.history)
			if tt.history.ProbeIncident != "" {
				h.Incidents = []api.Incident{ourIncident(outage)}
			}
			st := assembleOne(h, tt.obs)
			if st.Status != tt.want || st.Basis != tt.basis {
				t.Errorf("status %s (basis %s), want %s (%s)", st.Status, st.Basis, tt.want, tt.basis)
			}
			if st.Sources.Disagreement != nil {
				t.Errorf("disagreement %+v without the page's word this cycle", st.Sources.Disagreement)
			}
		})
	}
}

// With no internet, every service reads unknown, never an outage: the
// failed probes are discarded, and no page's last word is held.
func TestAssembleOffline(t *testing.T) {
	t.Parallel()
	cat := catalog.Catalog{}
	obs := map[string]Observation{}
	h := history.New()
	offline := api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedError, Error: "dial tcp: network is unreachable", Failure: api.FailureNetwork}
	for _, slug := range []string{"a", "b", "c", "d"} {
		cat.Services = append(cat.Services, catalog.Service{Slug: slug, Name: slug})
		obs[slug] = Observation{Feed: offline, Probe: probeDown}
		h.Services[slug] = &history.ServiceHistory{LastStatus: api.Operational, LastChecked: asmNow.Add(-time.Minute),
			LastFeedStatus: api.Operational, LastFeedAt: asmNow.Add(-time.Minute), FailedProbes: 2, FailingSince: asmNow.Add(-2 * time.Minute)}
	}
	for slug, st := range Assemble(h, cat, obs, asmNow, zerolog.Nop()) {
		if st.Status != api.Unknown || st.Basis != api.BasisNone || st.Sources.Probe.State != api.ProbeDiscarded {
			t.Errorf("%s: %s (basis %s), probe %s; want unknown with nothing to go on, discarded", slug, st.Status, st.Basis, st.Sources.Probe.State)
		}
		if sh := h.Services[slug]; sh.FailedProbes != 2 || sh.ProbeIncident != "" {
			t.Errorf("%s: %d failed probes, incident %q: a discarded probe counts for nothing", slug, sh.FailedProbes, sh.ProbeIncident)
		}
	}
}

// The decision holds over any run of observations, not only at the edges
// tested one by one: operational, partial_outage and maintenance rest on
// the page's word; our probes alone give only major_outage, degraded beside
// our own open incident, or unknown; nothing to go on is unknown; and a
// disagreement is our probes'.
func TestAssembleBasisInvariants(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 7))
	feeds := []api.FeedSource{feedFailed, feedNone}
	for _, st := range api.Statuses {
		if st != api.Unknown {
			feeds = append(feeds, feedOK(st))
		}
	}
	for run := range 50 {
		// A service has a probe URL or not, for the whole run.
		probes := []api.ProbeSource{probeOK, probeDown, probeDown}
		if run%5 == 0 {
			probes = []api.ProbeSource{probeNone}
		}
		h := history.New()
		at := asmNow
		for cycle := range 200 {
			o := Observation{Feed: feeds[rng.IntN(len(feeds))], Probe: probes[rng.IntN(len(probes))]}
			st := Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())["svc"]
			var ok bool
			switch st.Basis {
			case api.BasisOfficial:
				ok = st.Status != api.Unknown && st.Sources.Disagreement == nil
			case api.BasisProbe:
				ok = st.Status == api.MajorOutage || st.Status == api.Unknown ||
					st.Status == api.Degraded && h.Services["svc"].ProbeIncident != ""
			case api.BasisNone:
				ok = st.Status == api.Unknown && st.Sources.Disagreement == nil
			}
			if !ok {
				t.Fatalf("run %d, cycle %d: %s with basis %q (disagreement %+v) after feed %s/%s, probe %s",
					run, cycle, st.Status, st.Basis, st.Sources.Disagreement, o.Feed.State, o.Feed.Status, o.Probe.State)
			}
			if st.Status == api.Operational && h.Services["svc"].ProbeIncident != "" {
				t.Fatalf("run %d, cycle %d: operational beside our open incident, after feed %s/%s, probe %s",
					run, cycle, o.Feed.State, o.Feed.Status, o.Probe.State)
			}
			at = at.Add(time.Duration(1+rng.IntN(20)) * time.Minute)
		}
	}
}

// ourIncident is an open incident of our probes on svc, started at start.
func ourIncident(start time.Time) api.Incident {
	return api.Incident{ID: api.ProbeIncidentID("svc", start), Service: "svc", Headline: "Svc API not reachable",
		Severity: api.Major, StartedAt: start, Status: "ongoing", Source: api.SourceProbe, UpdatedAt: start}
}

// withOurOutage is a history whose one service is in an outage our probes
// found, our incident open since start.
func withOurOutage(start time.Time) *history.History {
	inc := ourIncident(start)
	h := withHistory(history.ServiceHistory{LastStatus: api.MajorOutage, ProbeIncident: inc.ID})
	h.Incidents = []api.Incident{inc}
	return h
}

// While our own incident is open, the service is never called operational:
// the first answer after an outage reads degraded (with the calm page's
// disagreement), the second closes the incident.
func TestAssembleRecovery(t *testing.T) {
	t.Parallel()
	start := asmNow.Add(-10 * time.Minute)
	h := withOurOutage(start)

	st := assembleOne(h, Observation{Feed: feedOK(api.Operational), Probe: probeOK})
	if st.Status != api.Degraded || st.Basis != api.BasisProbe || st.Sources.Disagreement == nil || !st.Sources.Disagreement.Since.Equal(start) {
		t.Fatalf("first answer: %s (basis %s), disagreement %+v; want degraded by our probes since %s", st.Status, st.Basis, st.Sources.Disagreement, start)
	}
	if h.Incidents[0].EndedAt != nil {
		t.Fatal("incident closed after one answer")
	}

	st = Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedOK(api.Operational), Probe: probeOK}}, asmNow.Add(time.Minute), zerolog.Nop())["svc"]
	if st.Status != api.Operational || st.Basis != api.BasisOfficial || st.Sources.Disagreement != nil {
		t.Fatalf("second answer: %s (basis %s), disagreement %+v", st.Status, st.Basis, st.Sources.Disagreement)
	}
	if inc := h.Incidents[0]; inc.EndedAt == nil || !inc.EndedAt.Equal(asmNow) || inc.Status != "resolved" {
		t.Fatalf("incident after recovery: %+v", inc)
	}
}

// A probe that fails again after one answer leaves our incident open (it
// closes after history.ProbeRecoveryAfter answers in a row): a calm page still reads
// degraded, never operational beside it.
func TestAssembleRelapse(t *testing.T) {
	t.Parallel()
	start := asmNow.Add(-10 * time.Minute)
	h := withOurOutage(start)
	at := asmNow
	for i, tt := range []struct {
		probe api.ProbeSource
		want  api.Status
		says  string // in the disagreement's detail; "" for none
	}{
		{probeOK, api.Degraded, "answer again"},
		{probeDown, api.Degraded, "stays open until our probes of the API answer 2 times in a row"},
		{probeOK, api.Degraded, "answer again"},
		{probeOK, api.Operational, ""},
	} {
		st := Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedOK(api.Operational), Probe: tt.probe}}, at, zerolog.Nop())["svc"]
		d := st.Sources.Disagreement
		if st.Status != tt.want || (d == nil) != (tt.says == "") || d != nil && (!strings.Contains(d.Detail, tt.says) || !d.Since.Equal(start)) {
			t.Fatalf("cycle %d (probe %s): %s, disagreement %+v; want %s saying %q", i, tt.probe.State, st.Status, d, tt.want, tt.says)
		}
		at = at.Add(time.Minute)
	}
	if inc := h.Incidents[0]; inc.EndedAt == nil || !inc.EndedAt.Equal(asmNow.Add(2*time.Minute)) {
		t.Errorf("incident after recovery: %+v", inc)
	}
}

func TestAssembleSourceHealth(t *testing.T) {
	t.Parallel()
	h := history.New()
	at := asmNow
	cycle := func(o Observation) api.FeedSource {
		t.Helper()
		st := Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())["svc"]
		at = at.Add(time.Minute)
		return st.Sources.Feed
	}
	comps := func(names ...string) []api.Component {
		var out []api.Component
		for _, n := range names {
			out = append(out, api.Component{ID: "id-" + n, Name: n, Status: api.Operational, InScope: n != "Website"})
		}
		return out
	}

	f := cycle(Observation{Feed: feedOK(api.Operational), Components: comps("Chat", "Embeddings", "Website"), Probe: probeOK})
	if f.LastOKAt == nil || !f.LastOKAt.Equal(asmNow) || f.ConsecutiveFailures != 0 || f.FailingSince != nil || f.RosterChangedAt != nil {
		t.Fatalf("first good read: %+v", f)
	}
	if got := h.Services["svc"].Feed.Roster; !slices.Equal(got, []string{"Chat (id-Chat)", "Embeddings (id-Embeddings)"}) {
		t.Fatalf("roster %q: only the in-scope components", got)
	}

	for i := 1; i <= 3; i++ {
		f = cycle(Observation{Feed: feedFailed, Probe: probeOK})
		if f.ConsecutiveFailures != i || f.FailingSince == nil || !f.FailingSince.Equal(asmNow.Add(time.Minute)) || !f.LastOKAt.Equal(asmNow) {
			t.Fatalf("failure %d: %+v", i, f)
		}
	}
	if h.Services["svc"].Feed.LastFailure != api.FailureHTTP {
		t.Errorf("last failure %q, want http_status", h.Services["svc"].Feed.LastFailure)
	}

	// A good read ends the run; the roster changed while nobody looked.
	f = cycle(Observation{Feed: feedOK(api.Operational), Components: comps("Chat", "Agents", "Website"), Probe: probeOK})
	if f.ConsecutiveFailures != 0 || f.FailingSince != nil || !f.LastOKAt.Equal(asmNow.Add(4*time.Minute)) {
		t.Fatalf("recovered source: %+v", f)
	}
	if f.RosterChangedAt == nil || !slices.Equal(f.RosterAdded, []string{"Agents (id-Agents)"}) || !slices.Equal(f.RosterRemoved, []string{"Embeddings (id-Embeddings)"}) {
		t.Fatalf("roster change: %+v", f)
	}

	// A service without a page has no health to keep.
	if f = cycle(Observation{Feed: feedNone, Probe: probeOK}); f.LastOKAt != nil || f.ConsecutiveFailures != 0 {
		t.Errorf("no page: %+v", f)
	}
}

// A source failing for over an hour is logged at error level (a person must
// look: it may have moved); a shorter run of failures is not.
func TestAssembleAlarmsOnALongFailingSource(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	log := zerolog.New(&logged)
	h := history.New()
	for _, at := range []time.Time{asmNow, asmNow.Add(30 * time.Minute), asmNow.Add(SourceAlarmAfter)} {
		logged.Reset()
		Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedFailed, Probe: probeOK}}, at, log)
		alarmed := strings.Contains(logged.String(), `"level":"error"`) && strings.Contains(logged.String(), "failing for over an hour")
		if want := !at.Before(asmNow.Add(SourceAlarmAfter)); alarmed != want {
			t.Errorf("after %s of failures: alarm %v, want %v\n%s", at.Sub(asmNow), alarmed, want, logged.String())
		}
	}
}
