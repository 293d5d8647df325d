package build

import (
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/snapshot"
)

// TestScenario runs thirteen one-minute cycles against a scripted world and
// checks the statuses, incidents and uptime that result:
//
//	minute  anthropic (official feed)          cohere (feed + probe)        everyone
//	0       calm                               calm                         calm
//	1-2     degraded, incident opened (minor)  ·                            ·
//	3       major outage, incident critical    ·                            ·
//	4       recovered, incident resolved       ·                            ·
//	5       ·                                  feed broken                  ·
//	6-8     ·                                  feed broken, API down        ·
//	9       ·                                  recovered (degraded: our     ·
//	        ·                                  incident is still open)      ·
//	10      ·                                  operational, incident closed ·
//	11      ·                                  ·                            our network is gone
//	12      ·                                  ·                            back
func TestScenario(t *testing.T) {
	t.Parallel()
	// Six services, enough probes for the rule of our own network
	// (history.OwnNetworkMinProbes); each of thirteen builds of the whole catalog cost
	// a second under -race.
	h := newHarnessWith(t, scheduleCatalog(t, "anthropic", "cohere", "openai", "mistral", "perplexity", "google-gemini"))
	at := func(minute int) time.Time { return t0.Add(time.Duration(minute) * time.Minute) }
	incident := func(sev api.Severity, resolved *time.Time) []buildtest.Incident {
		return []buildtest.Incident{{ID: "inc1", Name: "Elevated errors on the Messages API", Severity: sev, StartedAt: at(1), ResolvedAt: resolved}}
	}
	want := map[int]map[string]api.Status{}
	expect := func(minute int, slug string, st api.Status) {
		if want[minute] == nil {
			want[minute] = map[string]api.Status{}
		}
		want[minute][slug] = st
	}
	script := map[int]func(){
		1: func() {
			h.world.Set("anthropic", func(p *buildtest.Page) { p.Status, p.Incidents = api.Degraded, incident(api.Minor, nil) })
		},
		3: func() {
			h.world.Set("anthropic", func(p *buildtest.Page) {
				p.Status, p.Incidents = api.MajorOutage, incident(api.Critical, nil)
			})
		},
		4: func() {
			resolved := at(4)
			h.world.Set("anthropic", func(p *buildtest.Page) {
				p.Status, p.Incidents = api.Operational, incident(api.Critical, &resolved)
			})
		},
		5: func() { h.world.Set("cohere", func(p *buildtest.Page) { p.FeedBroken = true }) },
		6: func() { h.world.Set("cohere", func(p *buildtest.Page) { p.APIDown = true }) },
		9: func() { h.world.Set("cohere", func(p *buildtest.Page) { p.FeedBroken, p.APIDown = false, false }) },
		11: func() {
			h.world.SetAll(func(p *buildtest.Page) { p.FeedBroken, p.APIDown = true, true })
		},
		12: func() {
			h.world.SetAll(func(p *buildtest.Page) { p.FeedBroken, p.APIDown = false, false })
		},
	}
	for m, st := range []api.Status{api.Operational, api.Degraded, api.Degraded, api.MajorOutage} {
		expect(m, "anthropic", st)
	}
	expect(4, "anthropic", api.Operational)
	for m := 5; m <= 7; m++ {
		expect(m, "cohere", api.Operational) // the feed's last word holds, through two lost probes
	}
	expect(8, "cohere", api.MajorOutage) // third failed probe with the feed silent
	expect(9, "cohere", api.Degraded)    // the page says operational, but our incident is open until a second answer
	expect(10, "cohere", api.Operational)
	expect(11, "anthropic", api.Unknown)
	expect(11, "cohere", api.Unknown)
	expect(12, "cohere", api.Operational)

	for minute := 0; minute <= 12; minute++ {
		if step := script[minute]; step != nil {
			step()
		}
		if !h.clock.Now().Equal(at(minute)) {
			t.Fatalf("clock at %s, want minute %d", h.clock.Now(), minute)
		}
		res := h.cycle()
		for slug, st := range want[minute] {
			if got := res.Statuses[slug]; got != st {
				t.Errorf("minute %d: %s is %s, want %s", minute, slug, got, st)
			}
		}
		if minute == 11 {
			for slug, st := range res.Statuses {
				if st != api.Unknown {
					t.Errorf("minute 11 (our network gone): %s is %s, want unknown", slug, st)
				}
			}
		}
		if minute == 3 {
			incs := h.service("anthropic").Incidents
			if len(incs) != 1 || incs[0].Severity != api.Critical || incs[0].EndedAt != nil {
				t.Errorf("minute 3: anthropic incident not updated to critical: %+v", incs)
			}
		}
	}

	var list api.IncidentList
	h.read(snapshot.FileIncidents, &list)
	if len(list.Incidents) != 2 {
		t.Fatalf("incidents at the end: %+v", list.Incidents)
	}
	probe, official := list.Incidents[0], list.Incidents[1] // newest startedAt first
	if official.ID != "anthropic-inc1" || official.Source != api.SourceOfficial || official.Severity != api.Critical ||
		!official.StartedAt.Equal(at(1)) || official.EndedAt == nil || !official.EndedAt.Equal(at(4)) {
		t.Errorf("official incident: %+v", official)
	}
	if probe.Service != "cohere" || probe.Source != api.SourceProbe || !probe.StartedAt.Equal(at(6)) ||
		probe.EndedAt == nil || !probe.EndedAt.Equal(at(9)) || probe.Status != "resolved" {
		t.Errorf("probe incident: %+v", probe)
	}

	// Uptime at minute 12, 24 h window. anthropic: 11 observed minutes
	// (minute 11 is no data), 1 of them major outage: 100 × 10/11 = 90.909.
	// cohere: a major outage from its first failed probe (minute 6, where
	// our incident starts) to its first answer (minute 9), though the status
	// read operational until the third failure: 100 × 8/11 = 72.727.
	// openai: 100.
	for slug, wantUp := range map[string]float64{"anthropic": 90.909, "cohere": 72.727, "openai": 100} {
		up := h.service(slug).Uptime.H24
		if up == nil || *up != wantUp {
			t.Errorf("%s 24h uptime = %v, want %v", slug, deref(up), wantUp)
		}
	}
}
