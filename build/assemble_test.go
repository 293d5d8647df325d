package build

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// The combining rules of Assemble, one observation against one history at
// a time, without any server: see assemble.go for the rules.

var asmNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

var asmCatalog = snapshot.Catalog{Services: []snapshot.Service{{Slug: "svc", Name: "Svc", StatusPage: "https://status.svc.example"}}}

func feedOK(st snapshot.Status) snapshot.FeedSource {
	return snapshot.FeedSource{Format: snapshot.FormatStatuspage, State: snapshot.FeedOK, Status: st}
}

var (
	feedFailed = snapshot.FeedSource{Format: snapshot.FormatStatuspage, State: snapshot.FeedError, Error: "HTTP 403", Failure: snapshot.FailureHTTP}
	feedNone   = snapshot.FeedSource{Format: snapshot.FormatNone, State: snapshot.FeedNone}
	probeOK    = snapshot.ProbeSource{State: snapshot.ProbeOK, LatencyMs: new(12.5), HTTPStatus: 401}
	probeDown  = snapshot.ProbeSource{State: snapshot.ProbeFailed, Error: "connection refused"}
	probeNone  = snapshot.ProbeSource{State: snapshot.ProbeNone}
)

// assembleOne runs one cycle of one service on history h at asmNow.
func assembleOne(h *snapshot.History, o Observation) ServiceState {
	return Assemble(h, asmCatalog, map[string]Observation{"svc": o}, asmNow, zerolog.Nop())["svc"]
}

// withHistory returns a history whose one service is sh, checked a minute
// before asmNow with status last.
func withHistory(sh snapshot.ServiceHistory) *snapshot.History {
	h := snapshot.NewHistory()
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
		history  snapshot.ServiceHistory
		obs      Observation
		want     snapshot.Status
		basis    snapshot.Basis
		disagree bool // a disagreement with the official page is published
		failed   int  // the consecutive failed probes counted afterwards
	}{
		{"page and probe agree", snapshot.ServiceHistory{}, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK},
			snapshot.Operational, snapshot.BasisOfficial, false, 0},
		{"the page's degraded wins over an answering probe", snapshot.ServiceHistory{}, Observation{Feed: feedOK(snapshot.Degraded), Probe: probeOK},
			snapshot.Degraded, snapshot.BasisOfficial, false, 0},
		{"second failed probe: the page's word holds", snapshot.ServiceHistory{LastStatus: snapshot.Operational, FailedProbes: 1, FailingSince: failingSince},
			Observation{Feed: feedOK(snapshot.Operational), Probe: probeDown}, snapshot.Operational, snapshot.BasisOfficial, false, 2},
		{"third failed probe overrules a calm page", snapshot.ServiceHistory{LastStatus: snapshot.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(snapshot.Operational), Probe: probeDown}, snapshot.MajorOutage, snapshot.BasisProbe, true, 3},
		{"third failed probe overrules a degraded page", snapshot.ServiceHistory{LastStatus: snapshot.Degraded, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(snapshot.Degraded), Probe: probeDown}, snapshot.MajorOutage, snapshot.BasisProbe, true, 3},
		{"a page declaring an outage explains the failures", snapshot.ServiceHistory{LastStatus: snapshot.PartialOutage, FailedProbes: 5, FailingSince: failingSince},
			Observation{Feed: feedOK(snapshot.PartialOutage), Probe: probeDown}, snapshot.PartialOutage, snapshot.BasisOfficial, false, 0},
		{"maintenance explains the failures", snapshot.ServiceHistory{LastStatus: snapshot.Maintenance, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedOK(snapshot.Maintenance), Probe: probeDown}, snapshot.Maintenance, snapshot.BasisOfficial, false, 0},
		{"page silent, third failed probe", snapshot.ServiceHistory{LastStatus: snapshot.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedFailed, Probe: probeDown}, snapshot.MajorOutage, snapshot.BasisProbe, false, 3},
		{"no page, third failed probe", snapshot.ServiceHistory{LastStatus: snapshot.Operational, FailedProbes: 2, FailingSince: failingSince},
			Observation{Feed: feedNone, Probe: probeDown}, snapshot.MajorOutage, snapshot.BasisProbe, false, 3},
		{"page silent, a first failed probe is no outage, and keeps no earlier status", snapshot.ServiceHistory{LastStatus: snapshot.Degraded},
			Observation{Feed: feedFailed, Probe: probeDown}, snapshot.Unknown, snapshot.BasisProbe, false, 1},
		{"a failing page keeps its word for a while", snapshot.ServiceHistory{LastStatus: snapshot.MajorOutage,
			LastFeedStatus: snapshot.MajorOutage, LastFeedAt: asmNow.Add(-5 * time.Minute)},
			Observation{Feed: feedFailed, Probe: probeOK}, snapshot.MajorOutage, snapshot.BasisOfficial, false, 0},
		{"…but not longer than MaxHold", snapshot.ServiceHistory{LastStatus: snapshot.MajorOutage,
			LastFeedStatus: snapshot.MajorOutage, LastFeedAt: asmNow.Add(-snapshot.MaxHold - time.Minute)},
			Observation{Feed: feedFailed, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe, false, 0},
		{"no page, the probe answers", snapshot.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe, false, 0},
		{"neither page nor probe", snapshot.ServiceHistory{}, Observation{Feed: feedFailed, Probe: probeNone}, snapshot.Unknown, snapshot.BasisNone, false, 0},
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
			if probeIncident := sh.ProbeIncident != ""; probeIncident != (tt.failed >= snapshot.ProbeIncidentAfter) {
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
	scopeLost := snapshot.FeedSource{Format: snapshot.FormatStatuspage, State: snapshot.FeedError, Failure: snapshot.FailureScope,
		Error: "none of the page's 6 components is in the scope of Svc: the page changed, or the scope needs updating"}
	said := func(st snapshot.Status, ago time.Duration) snapshot.ServiceHistory {
		return snapshot.ServiceHistory{LastStatus: st, LastFeedStatus: st, LastFeedAt: asmNow.Add(-ago)}
	}
	outage := asmNow.Add(-10 * time.Minute) // our incident, opened then, still open
	open := func(sh snapshot.ServiceHistory) snapshot.ServiceHistory {
		sh.ProbeIncident = snapshot.ProbeIncidentID("svc", outage)
		return sh
	}
	tests := []struct {
		name    string
		history snapshot.ServiceHistory
		obs     Observation
		want    snapshot.Status
		basis   snapshot.Basis
	}{
		{"the page's word, the host answers", snapshot.ServiceHistory{}, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK},
			snapshot.Operational, snapshot.BasisOfficial},
		{"scope matches nothing, the host answers 401", snapshot.ServiceHistory{}, Observation{Feed: scopeLost, Probe: probeOK},
			snapshot.Unknown, snapshot.BasisProbe},
		{"scope matches nothing, the page's last word is MaxHold old", said(snapshot.Operational, snapshot.MaxHold),
			Observation{Feed: scopeLost, Probe: probeOK}, snapshot.Operational, snapshot.BasisOfficial},
		{"scope matches nothing, the page's last word is older", said(snapshot.Operational, snapshot.MaxHold+time.Second),
			Observation{Feed: scopeLost, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe},
		{"the page unreadable, its last word an outage", said(snapshot.MajorOutage, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeOK}, snapshot.MajorOutage, snapshot.BasisOfficial},
		{"the page unreadable, its last word holds through a failed probe", said(snapshot.Operational, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeDown}, snapshot.Operational, snapshot.BasisOfficial},
		{"the page unreadable, the host answers, no earlier word", snapshot.ServiceHistory{LastStatus: snapshot.Operational},
			Observation{Feed: feedFailed, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe},
		{"the page unreadable, no probe, its last word", said(snapshot.Degraded, 5*time.Minute),
			Observation{Feed: feedFailed, Probe: probeNone}, snapshot.Degraded, snapshot.BasisOfficial},
		{"the page unreadable, no probe, its last word too old", said(snapshot.Degraded, snapshot.MaxHold+time.Second),
			Observation{Feed: feedFailed, Probe: probeNone}, snapshot.Unknown, snapshot.BasisNone},
		{"no page, the host answers", snapshot.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe},
		{"no page, no probe", snapshot.ServiceHistory{}, Observation{Feed: feedNone, Probe: probeNone}, snapshot.Unknown, snapshot.BasisNone},
		{"no page, the host answers after our outage", open(snapshot.ServiceHistory{LastStatus: snapshot.MajorOutage}),
			Observation{Feed: feedNone, Probe: probeOK}, snapshot.Unknown, snapshot.BasisProbe},
		{"the page's last word operational, the host answers after our outage", open(said(snapshot.Operational, 5*time.Minute)),
			Observation{Feed: feedFailed, Probe: probeOK}, snapshot.Degraded, snapshot.BasisProbe},
		{"the page's last word operational, our incident open, a failed probe", open(said(snapshot.Operational, 5*time.Minute)),
			Observation{Feed: feedFailed, Probe: probeDown}, snapshot.Degraded, snapshot.BasisProbe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := withHistory(tt.history)
			if tt.history.ProbeIncident != "" {
				h.Incidents = []snapshot.Incident{ourIncident(outage)}
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
	cat := snapshot.Catalog{}
	obs := map[string]Observation{}
	h := snapshot.NewHistory()
	offline := snapshot.FeedSource{Format: snapshot.FormatStatuspage, State: snapshot.FeedError, Error: "dial tcp: network is unreachable", Failure: snapshot.FailureNetwork}
	for _, slug := range []string{"a", "b", "c", "d"} {
		cat.Services = append(cat.Services, snapshot.Service{Slug: slug, Name: slug})
		obs[slug] = Observation{Feed: offline, Probe: probeDown}
		h.Services[slug] = &snapshot.ServiceHistory{LastStatus: snapshot.Operational, LastChecked: asmNow.Add(-time.Minute),
			LastFeedStatus: snapshot.Operational, LastFeedAt: asmNow.Add(-time.Minute), FailedProbes: 2, FailingSince: asmNow.Add(-2 * time.Minute)}
	}
	for slug, st := range Assemble(h, cat, obs, asmNow, zerolog.Nop()) {
		if st.Status != snapshot.Unknown || st.Basis != snapshot.BasisNone || st.Sources.Probe.State != snapshot.ProbeDiscarded {
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
	feeds := []snapshot.FeedSource{feedFailed, feedNone}
	for _, st := range snapshot.Statuses {
		if st != snapshot.Unknown {
			feeds = append(feeds, feedOK(st))
		}
	}
	for run := range 50 {
		// A service has a probe URL or not, for the whole run.
		probes := []snapshot.ProbeSource{probeOK, probeDown, probeDown}
		if run%5 == 0 {
			probes = []snapshot.ProbeSource{probeNone}
		}
		h := snapshot.NewHistory()
		at := asmNow
		for cycle := range 200 {
			o := Observation{Feed: feeds[rng.IntN(len(feeds))], Probe: probes[rng.IntN(len(probes))]}
			st := Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())["svc"]
			var ok bool
			switch st.Basis {
			case snapshot.BasisOfficial:
				ok = st.Status != snapshot.Unknown && st.Sources.Disagreement == nil
			case snapshot.BasisProbe:
				ok = st.Status == snapshot.MajorOutage || st.Status == snapshot.Unknown ||
					st.Status == snapshot.Degraded && h.Services["svc"].ProbeIncident != ""
			case snapshot.BasisNone:
				ok = st.Status == snapshot.Unknown && st.Sources.Disagreement == nil
			}
			if !ok {
				t.Fatalf("run %d, cycle %d: %s with basis %q (disagreement %+v) after feed %s/%s, probe %s",
					run, cycle, st.Status, st.Basis, st.Sources.Disagreement, o.Feed.State, o.Feed.Status, o.Probe.State)
			}
			if st.Status == snapshot.Operational && h.Services["svc"].ProbeIncident != "" {
				t.Fatalf("run %d, cycle %d: operational beside our open incident, after feed %s/%s, probe %s",
					run, cycle, o.Feed.State, o.Feed.Status, o.Probe.State)
			}
			at = at.Add(time.Duration(1+rng.IntN(20)) * time.Minute)
		}
	}
}

// ourIncident is an open incident of our probes on svc, started at start.
func ourIncident(start time.Time) snapshot.Incident {
	return snapshot.Incident{ID: snapshot.ProbeIncidentID("svc", start), Service: "svc", Headline: "Svc API not reachable",
		Severity: snapshot.Major, StartedAt: start, Status: "ongoing", Source: snapshot.SourceProbe, UpdatedAt: start}
}

// withOurOutage is a history whose one service is in an outage our probes
// found, our incident open since start.
func withOurOutage(start time.Time) *snapshot.History {
	inc := ourIncident(start)
	h := withHistory(snapshot.ServiceHistory{LastStatus: snapshot.MajorOutage, ProbeIncident: inc.ID})
	h.Incidents = []snapshot.Incident{inc}
	return h
}

// While our own incident is open, the service is never called operational:
// the first answer after an outage reads degraded (with the calm page's
// disagreement), the second closes the incident.
func TestAssembleRecovery(t *testing.T) {
	t.Parallel()
	start := asmNow.Add(-10 * time.Minute)
	h := withOurOutage(start)

	st := assembleOne(h, Observation{Feed: feedOK(snapshot.Operational), Probe: probeOK})
	if st.Status != snapshot.Degraded || st.Basis != snapshot.BasisProbe || st.Sources.Disagreement == nil || !st.Sources.Disagreement.Since.Equal(start) {
		t.Fatalf("first answer: %s (basis %s), disagreement %+v; want degraded by our probes since %s", st.Status, st.Basis, st.Sources.Disagreement, start)
	}
	if h.Incidents[0].EndedAt != nil {
		t.Fatal("incident closed after one answer")
	}

	st = Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedOK(snapshot.Operational), Probe: probeOK}}, asmNow.Add(time.Minute), zerolog.Nop())["svc"]
	if st.Status != snapshot.Operational || st.Basis != snapshot.BasisOfficial || st.Sources.Disagreement != nil {
		t.Fatalf("second answer: %s (basis %s), disagreement %+v", st.Status, st.Basis, st.Sources.Disagreement)
	}
	if inc := h.Incidents[0]; inc.EndedAt == nil || !inc.EndedAt.Equal(asmNow) || inc.Status != "resolved" {
		t.Fatalf("incident after recovery: %+v", inc)
	}
}

// A probe that fails again after one answer leaves our incident open (it
// closes after ProbeRecoveryAfter answers in a row): a calm page still reads
// degraded, never operational beside it.
func TestAssembleRelapse(t *testing.T) {
	t.Parallel()
	start := asmNow.Add(-10 * time.Minute)
	h := withOurOutage(start)
	at := asmNow
	for i, tt := range []struct {
		probe snapshot.ProbeSource
		want  snapshot.Status
		says  string // in the disagreement's detail; "" for none
	}{
		{probeOK, snapshot.Degraded, "answer again"},
		{probeDown, snapshot.Degraded, "stays open until our probes of the API answer 2 times in a row"},
		{probeOK, snapshot.Degraded, "answer again"},
		{probeOK, snapshot.Operational, ""},
	} {
		st := Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedOK(snapshot.Operational), Probe: tt.probe}}, at, zerolog.Nop())["svc"]
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
	h := snapshot.NewHistory()
	at := asmNow
	cycle := func(o Observation) snapshot.FeedSource {
		t.Helper()
		st := Assemble(h, asmCatalog, map[string]Observation{"svc": o}, at, zerolog.Nop())["svc"]
		at = at.Add(time.Minute)
		return st.Sources.Feed
	}
	comps := func(names ...string) []snapshot.Component {
		var out []snapshot.Component
		for _, n := range names {
			out = append(out, snapshot.Component{ID: "id-" + n, Name: n, Status: snapshot.Operational, InScope: n != "Website"})
		}
		return out
	}

	f := cycle(Observation{Feed: feedOK(snapshot.Operational), Components: comps("Chat", "Embeddings", "Website"), Probe: probeOK})
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
	if h.Services["svc"].Feed.LastFailure != snapshot.FailureHTTP {
		t.Errorf("last failure %q, want http_status", h.Services["svc"].Feed.LastFailure)
	}

	// A good read ends the run; the roster changed while nobody looked.
	f = cycle(Observation{Feed: feedOK(snapshot.Operational), Components: comps("Chat", "Agents", "Website"), Probe: probeOK})
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
	h := snapshot.NewHistory()
	for _, at := range []time.Time{asmNow, asmNow.Add(30 * time.Minute), asmNow.Add(SourceAlarmAfter)} {
		logged.Reset()
		Assemble(h, asmCatalog, map[string]Observation{"svc": {Feed: feedFailed, Probe: probeOK}}, at, log)
		alarmed := strings.Contains(logged.String(), `"level":"error"`) && strings.Contains(logged.String(), "failing for over an hour")
		if want := !at.Before(asmNow.Add(SourceAlarmAfter)); alarmed != want {
			t.Errorf("after %s of failures: alarm %v, want %v\n%s", at.Sub(asmNow), alarmed, want, logged.String())
		}
	}
}
