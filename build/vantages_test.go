package build

import (
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/vantage"
	"github.com/rs/zerolog"
)

func point(name, state string) api.VantagePoint {
	p := api.VantagePoint{Name: name, State: state, At: asmNow.Add(-20 * time.Second)}
	if state == api.ProbeOK {
		p.LatencyMs = new(30.0)
	}
	return p
}

// The regional rule at its edges, one cycle of one service whose page says
// operational, on a fresh history (no failed probe counted before).
func TestAssembleVantages(t *testing.T) {
	t.Parallel()
	ok, failed := api.ProbeOK, api.ProbeFailed
	tests := []struct {
		name    string
		probe   api.ProbeSource
		others  []api.VantagePoint
		reading string
		// status and the failed probes counted after the cycle.
		status api.Status
		failed int
		// probeState is the published state of the builder's probe.
		probeState string
		detail     string
	}{
		{"the builder alone is too few", probeDown, nil, api.VantageTooFew, api.Operational, 1, failed, "too few"},
		{"one other vantage and no builder probe: too few", probeNone, []api.VantagePoint{point("a", ok)}, api.VantageTooFew, api.Operational, 0, api.ProbeNone, "1 vantage"},
		{"everyone reaches it", probeOK, []api.VantagePoint{point("a", ok), point("c", ok)}, api.VantageReachable, api.Operational, 0, ok, "every vantage"},
		{"failing from one other vantage only: regional, not an outage", probeOK, []api.VantagePoint{point("a", ok), point("b", failed), point("c", ok)},
			api.VantageRegional, api.Operational, 0, ok, "fails from b while builder, a, c reach it"},
		{"failing from the builder only: its failure is set aside", probeDown, []api.VantagePoint{point("a", ok), point("c", ok)},
			api.VantageRegional, api.Operational, 0, api.ProbeDiscarded, "seen from builder"},
		{"failing from the builder while one other reaches it: its failure counts", probeDown, []api.VantagePoint{point("a", ok)},
			api.VantageTooFew, api.Operational, 1, failed, "only a reach it: at least 2 other vantages"},
		{"two of three failing, one reaching: the builder's failure counts", probeDown, []api.VantagePoint{point("a", failed), point("c", ok)},
			api.VantageTooFew, api.Operational, 1, failed, "fails from builder, a while only c reach it"},
		{"two of four failing, two others reaching: regional", probeDown, []api.VantagePoint{point("a", failed), point("c", ok), point("d", ok)},
			api.VantageRegional, api.Operational, 0, api.ProbeDiscarded, "fails from builder, a while c, d reach it"},
		{"failing from every vantage: an outage within the cycle", probeDown, []api.VantagePoint{point("a", failed), point("b", failed), point("c", failed)},
			api.VantageUnreachable, api.MajorOutage, 4, failed, "every vantage that reports (builder, a, b, c)"},
		{"failing from the builder and one other: two agree, counted as two", probeDown, []api.VantagePoint{point("a", failed)},
			api.VantageUnreachable, api.Operational, 2, failed, "provider"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := withHistory(history.ServiceHistory{LastStatus: api.Operational})
			st := assembleOne(h, Observation{Feed: feedOK(api.Operational), Probe: tc.probe,
				Vantages: &VantageView{Self: vantage.Builder, At: asmNow, Others: tc.others}})
			v := st.Sources.Vantages
			if v == nil {
				t.Fatal("no vantages published")
			}
			if v.Reading != tc.reading || !strings.Contains(v.Detail, tc.detail) {
				t.Errorf("reading %s (%q), want %s saying %q", v.Reading, v.Detail, tc.reading, tc.detail)
			}
			if st.Status != tc.status || h.Services["svc"].FailedProbes != tc.failed {
				t.Errorf("status %s with %d failed probes counted, want %s with %d", st.Status, h.Services["svc"].FailedProbes, tc.status, tc.failed)
			}
			if st.Sources.Probe.State != tc.probeState {
				t.Errorf("probe %s, want %s", st.Sources.Probe.State, tc.probeState)
			}
			reaching := 0
			for _, p := range v.Points {
				if p.State == api.ProbeOK {
					reaching++
				}
			}
			if v.Reaching != reaching || v.Reporting != len(v.Points) {
				t.Errorf("reaching %d of %d, points %+v", v.Reaching, v.Reporting, v.Points)
			}
		})
	}
}

// A host down from the builder stays down when one other vantage says it
// answers: one report, forged or mistaken, cannot take an outage off the
// page. (Mistral, probe-only, went from major_outage to unknown on one
// "ok" written to Redis.) Two others reaching it still can.
func TestAssembleOneVantageCannotHideAnOutage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		others  []api.VantagePoint
		status  api.Status
		reading string
	}{
		{"one other reaches it", []api.VantagePoint{point("a", api.ProbeOK)}, api.MajorOutage, api.VantageTooFew},
		{"one of two others reaches it", []api.VantagePoint{point("a", api.ProbeOK), point("b", api.ProbeFailed)}, api.MajorOutage, api.VantageTooFew},
		{"two others reach it", []api.VantagePoint{point("a", api.ProbeOK), point("b", api.ProbeOK)}, api.Unknown, api.VantageRegional},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := withHistory(history.ServiceHistory{LastStatus: api.MajorOutage, FailedProbes: 5, FailingSince: asmNow.Add(-10 * time.Minute)})
			st := assembleOne(h, Observation{Feed: feedNone, Probe: probeDown,
				Vantages: &VantageView{Self: vantage.Builder, At: asmNow, Others: tc.others}})
			if st.Status != tc.status || st.Sources.Vantages.Reading != tc.reading {
				t.Errorf("status %s, reading %s (%s); want %s, %s", st.Status, st.Sources.Vantages.Reading, st.Sources.Vantages.Detail, tc.status, tc.reading)
			}
		})
	}
}

// Without vantages read, nothing is published and nothing changes.
func TestAssembleWithoutVantages(t *testing.T) {
	t.Parallel()
	st := assembleOne(withHistory(history.ServiceHistory{}), Observation{Feed: feedOK(api.Operational), Probe: probeDown})
	if st.Sources.Vantages != nil || st.Sources.Probe.State != api.ProbeFailed {
		t.Errorf("vantages %+v, probe %s", st.Sources.Vantages, st.Sources.Probe.State)
	}
}

// Rule 1 comes first: with the builder's own network down, its failed
// probes are discarded and the vantages are published without deciding.
func TestAssembleVantagesAfterOurNetworkRule(t *testing.T) {
	t.Parallel()
	cat := catalog.Catalog{}
	obs := map[string]Observation{}
	for _, slug := range []string{"s1", "s2", "s3", "s4"} {
		cat.Services = append(cat.Services, catalog.Service{Slug: slug, Name: slug})
		obs[slug] = Observation{Feed: feedOK(api.Operational), Probe: probeDown,
			Vantages: &VantageView{Self: vantage.Builder, At: asmNow, Others: []api.VantagePoint{point("a", api.ProbeFailed), point("b", api.ProbeFailed)}}}
	}
	states := Assemble(history.New(), cat, obs, asmNow, zerolog.Nop())
	st := states["s1"]
	if st.Sources.Probe.State != api.ProbeDiscarded || st.Status != api.Operational || st.Sources.Vantages.Reading != api.VantageUnreachable ||
		st.Sources.Vantages.Reporting != 2 {
		t.Errorf("probe %s, status %s, vantages %+v", st.Sources.Probe.State, st.Status, st.Sources.Vantages)
	}
}

// A result older than its report's freshness, a report of the builder's
// own name and a host the report did not probe are not counted.
func TestVantageViewFreshness(t *testing.T) {
	t.Parallel()
	url := "https://api.svc.example/v1/models"
	svc := catalog.Service{Slug: "svc", ProbeURL: url}
	at := func(ago time.Duration) map[string]vantage.Result {
		return map[string]vantage.Result{url: {State: api.ProbeOK, LatencyMs: new(5.0), At: asmNow.Add(-ago)}}
	}
	reports := []vantage.Report{
		{Name: "fresh", FreshSeconds: 150, Results: at(150 * time.Second)},
		{Name: "stale", FreshSeconds: 150, Results: at(151 * time.Second)},
		{Name: "builder", FreshSeconds: 150, Results: at(time.Second)},
		{Name: "elsewhere", FreshSeconds: 150, Results: map[string]vantage.Result{"https://other.example/": {State: api.ProbeOK, At: asmNow}}},
	}
	v := vantageView(svc, vantage.Builder, reports, asmNow)
	if len(v.Others) != 1 || v.Others[0].Name != "fresh" || *v.Others[0].LatencyMs != 5 {
		t.Errorf("others %+v, want fresh only", v.Others)
	}
}
