package history

import (
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// reading is a check that read the page (declared, "" for a page not read)
// and probed the host (probe, an api.Probe* state).
func reading(declared api.Status, probe string) Reading {
	r := Reading{Feed: api.FeedSource{State: api.FeedError}, Probe: api.ProbeSource{State: probe}}
	if declared != "" {
		r.Feed = api.FeedSource{State: api.FeedOK, Status: declared}
	}
	return r
}

// TestDecideStatus holds each of rules 2 to 6 to its status, basis and
// disagreement, from a service history as CountProbe left it.
func TestDecideStatus(t *testing.T) {
	t.Parallel()
	now := at(time.Hour)
	failing := func(sh *ServiceHistory) {
		sh.FailedProbes, sh.FailingSince = api.ProbeIncidentAfter, at(57*time.Minute)
	}
	twoFailed := func(sh *ServiceHistory) { sh.FailedProbes, sh.FailingSince = 2, at(58*time.Minute) }
	ours := func(sh *ServiceHistory) { sh.ProbeIncident = "probe-x" }
	heldMajor := func(sh *ServiceHistory) { sh.LastFeedStatus, sh.LastFeedAt = api.MajorOutage, now.Add(-MaxHold) }
	heldOK := func(sh *ServiceHistory) { sh.LastFeedStatus, sh.LastFeedAt = api.Operational, now.Add(-time.Minute) }
	staleOK := func(sh *ServiceHistory) {
		sh.LastFeedStatus, sh.LastFeedAt = api.Operational, now.Add(-MaxHold-time.Second)
	}
	for _, tc := range []struct {
		name    string
		r       Reading
		state   []func(*ServiceHistory)
		offline bool
		status  api.Status
		basis   api.Basis
		// disagrees is a phrase of the disagreement's detail, "" for none.
		disagrees string
	}{
		{"rule 2: the page's word", reading(api.PartialOutage, api.ProbeOK), nil, false, api.PartialOutage, api.BasisOfficial, ""},
		{"rule 2: an outage on the page stands beside failing probes", reading(api.MajorOutage, api.ProbeFailed), []func(*ServiceHistory){failing}, false, api.MajorOutage, api.BasisOfficial, ""},
		{"rule 2: failing probes overrule a green page", reading(api.Operational, api.ProbeFailed), []func(*ServiceHistory){failing}, false, api.MajorOutage, api.BasisProbe, "failed 3 times in a row"},
		{"rule 2: failing probes overrule a degraded page", reading(api.Degraded, api.ProbeFailed), []func(*ServiceHistory){failing}, false, api.MajorOutage, api.BasisProbe, "says degraded"},
		{"rule 2: two failures do not", reading(api.Operational, api.ProbeFailed), []func(*ServiceHistory){twoFailed}, false, api.Operational, api.BasisOfficial, ""},
		{"rule 2: a green page beside our open incident, host answering", reading(api.Operational, api.ProbeOK), []func(*ServiceHistory){ours}, false, api.Degraded, api.BasisProbe, "answer again"},
		{"rule 2: a green page beside our open incident, host failing again", reading(api.Operational, api.ProbeFailed), []func(*ServiceHistory){ours}, false, api.Degraded, api.BasisProbe, "which they have not"},
		{"rule 3: failing probes without the page", reading("", api.ProbeFailed), []func(*ServiceHistory){failing}, false, api.MajorOutage, api.BasisProbe, ""},
		{"rule 4: the page's last word stands in", reading("", api.ProbeOK), []func(*ServiceHistory){heldMajor}, false, api.MajorOutage, api.BasisOfficial, ""},
		{"rule 4: a green last word beside our incident", reading("", api.ProbeOK), []func(*ServiceHistory){heldOK, ours}, false, api.Degraded, api.BasisProbe, ""},
		{"rule 4: not while offline", reading("", api.ProbeDiscarded), []func(*ServiceHistory){heldOK}, true, api.Unknown, api.BasisNone, ""},
		{"rule 5: past the hold, an answering host is unknown", reading("", api.ProbeOK), []func(*ServiceHistory){staleOK}, false, api.Unknown, api.BasisProbe, ""},
		{"rule 5: two failures show nothing", reading("", api.ProbeFailed), []func(*ServiceHistory){twoFailed}, false, api.Unknown, api.BasisProbe, ""},
		{"rule 6: neither page nor probe", reading("", api.ProbeNone), nil, false, api.Unknown, api.BasisNone, ""},
		{"rule 6: a page that declares unknown is no word", reading(api.Unknown, api.ProbeNone), nil, false, api.Unknown, api.BasisNone, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := New()
			h.Incidents = []api.Incident{{ID: "probe-x", Service: "x", StartedAt: at(50 * time.Minute), Source: api.SourceProbe}}
			sh := h.Track("x")
			for _, set := range tc.state {
				set(sh)
			}
			status, basis, dis := sh.DecideStatus(tc.r, h.IndexIncidents(), now, tc.offline)
			if status != tc.status || basis != tc.basis {
				t.Errorf("status %s, basis %s; want %s, %s", status, basis, tc.status, tc.basis)
			}
			switch {
			case tc.disagrees == "" && dis != nil:
				t.Errorf("disagreement %+v, want none", dis)
			case tc.disagrees != "" && dis == nil:
				t.Errorf("no disagreement, want one saying %q", tc.disagrees)
			case dis != nil:
				if !strings.Contains(dis.Detail, tc.disagrees) || dis.Measured != status || dis.Official != tc.r.Feed.Status {
					t.Errorf("disagreement %+v: want %q in its detail, measured %s, official %s", dis, tc.disagrees, status, tc.r.Feed.Status)
				}
			}
		})
	}
}

// TestCountProbe follows one outage through CountProbe: failures the page
// explains start no run; ours opens at api.ProbeIncidentAfter failures
// (re-probes counting), started at the first, and closes at the first of
// ProbeRecoveryAfter answers in a row, not at an answer between failures.
func TestCountProbe(t *testing.T) {
	t.Parallel()
	svc := catalog.Service{Slug: "x", Name: "X", StatusPage: "https://status.x.example"}
	h := New()
	sh := h.Track("x")
	incidents := h.IndexIncidents()
	minute := func(m int) time.Time { return at(time.Duration(m) * time.Minute) }
	steps := []struct {
		r      Reading
		opened bool
		failed int    // FailedProbes after the step
		open   string // "open", "closed" or "" (no incident yet)
	}{
		{reading(api.MajorOutage, api.ProbeFailed), false, 0, ""},        // the page explains it
		{reading(api.Operational, api.ProbeFailed), false, 1, ""},        // minute 1: the run starts
		{reading(api.Operational, api.ProbeOK), false, 0, ""},            // a lost packet
		{reading(api.Operational, api.ProbeFailed), false, 1, ""},        // minute 3: a new run
		{withAttempts(reading("", api.ProbeFailed), 2), true, 3, "open"}, // a failure and its confirming re-probe
		{reading(api.Operational, api.ProbeOK), false, 0, "open"},        // minute 5: one answer
		{reading(api.Operational, api.ProbeFailed), false, 1, "open"},    // fails again: still ours
		{reading(api.Operational, api.ProbeOK), false, 0, "open"},        // minute 7
		{reading(api.Operational, api.ProbeDiscarded), false, 0, "open"}, // no data changes nothing
		{reading(api.Operational, api.ProbeOK), false, 0, "closed"},      // minute 9: the second in a row
	}
	for i, s := range steps {
		opened := sh.CountProbe(incidents, svc, s.r, minute(i))
		if opened != s.opened || sh.FailedProbes != s.failed {
			t.Fatalf("step %d: opened %v, %d failed probes; want %v, %d", i, opened, sh.FailedProbes, s.opened, s.failed)
		}
		var got string
		if len(h.Incidents) > 0 {
			got = map[bool]string{true: "open", false: "closed"}[h.Incidents[0].Open()]
		}
		if got != s.open {
			t.Fatalf("step %d: our incident %q, want %q", i, got, s.open)
		}
	}
	inc := h.Incidents[0]
	if want := api.ProbeIncidentID("x", minute(3)); inc.ID != want || !inc.StartedAt.Equal(minute(3)) {
		t.Errorf("incident %s from %s, want %s from the run's first failure %s", inc.ID, inc.StartedAt, want, minute(3))
	}
	if !inc.EndedAt.Equal(minute(7)) || inc.Source != api.SourceProbe || inc.URL != svc.StatusPage {
		t.Errorf("incident ended %s (want the first answer of the last run, %s), source %s, url %s", inc.EndedAt, minute(7), inc.Source, inc.URL)
	}
	if sh.ProbeIncident != "" {
		t.Errorf("ProbeIncident %q after recovery, want none", sh.ProbeIncident)
	}
}

func withAttempts(r Reading, n int) Reading {
	r.Probe.Attempts = n
	return r
}

// TestOurNetworkDown is rule 1: most of at least four probes failing at
// once is our own network; fewer probes, or half failing, is not. Probes
// not sent or already discarded do not count.
func TestOurNetworkDown(t *testing.T) {
	t.Parallel()
	probes := func(states ...string) []api.ProbeSource {
		var out []api.ProbeSource
		for _, s := range states {
			out = append(out, api.ProbeSource{State: s})
		}
		return out
	}
	ok, failed, none := api.ProbeOK, api.ProbeFailed, api.ProbeNone
	for _, tc := range []struct {
		name   string
		probes []api.ProbeSource
		down   bool
	}{
		{"three of three failed: too few to blame ourselves", probes(failed, failed, failed), false},
		{"three of four failed", probes(failed, failed, failed, ok), true},
		{"half failed", probes(failed, failed, ok, ok), false},
		{"unprobed services do not count", probes(failed, failed, failed, none, none, none, none, ok), true},
		{"none failed", probes(ok, ok, ok, ok), false},
	} {
		if down, _, _ := OurNetworkDown(tc.probes); down != tc.down {
			t.Errorf("%s: down %v, want %v", tc.name, down, tc.down)
		}
	}
}
