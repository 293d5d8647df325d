package build

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// githubSchedule draws the gaps between the builds of a deployment on
// GitHub Actions' schedule, asked for every 5 minutes. The published
// figures: runs "not every 5 minutes" (upptime #42), about 18 minutes apart
// (upptime #112), 2–4 an hour (actions/runner #877), about once an hour
// (upptime #224), throttled to about two hours (aiwatch #629), and
// scheduled runs dropped under load (GitHub's documentation). The mixture:
// half the gaps 5–20 minutes, 35 % 20–40, 10 % 40–60, 5 % 60–120, each
// uniform; and one run in ten dropped, so that its gap runs on into the
// next draw. The mean gap is about 29 minutes.
type githubSchedule struct{ rng *rand.Rand }

const scheduleDropRate = 0.1

func (s githubSchedule) next() time.Duration {
	var gap time.Duration
	for {
		lo, hi := 5.0, 20.0
		switch p := s.rng.Float64(); {
		case p >= 0.95:
			lo, hi = 60, 120
		case p >= 0.85:
			lo, hi = 40, 60
		case p >= 0.5:
			lo, hi = 20, 40
		}
		gap += time.Duration((lo + s.rng.Float64()*(hi-lo)) * float64(time.Minute))
		if s.rng.Float64() >= scheduleDropRate {
			return gap
		}
	}
}

// scheduleResult is the 24 h coverage of each service after a simulated
// day on the schedule.
type scheduleResult struct {
	builds   int
	coverage map[string]float64
	sources  map[string]api.CoverageSources
	uptime   map[string]*float64
	// dataSince is each service's dataSince: the first build, unless its
	// history was lost on the way.
	dataSince map[string]*time.Time
}

// The simulated world: every page calm and read, but for these two.
const (
	// scheduleUnreadable's page answers 500 all day: it must get no
	// timeline credit.
	scheduleUnreadable = "anthropic"
	// scheduleIncident has a major incident from hour 10 to hour 13, which
	// builds far apart mostly see only on the page's timeline.
	scheduleIncident = "openai"
)

// simulateSchedule runs builds on a fake clock, against the loopback world,
// at the gaps githubSchedule draws from seed, for 25 hours (so the last
// 24-hour window holds no time before the first build), and reads the
// coverage each service document publishes at the end.
func simulateSchedule(tb testing.TB, seed uint64, cat catalog.Catalog) scheduleResult {
	tb.Helper()
	world := buildtest.NewWorld(tb, cat)
	clock := buildtest.NewClock(t0)
	world.Clock = clock.Now
	out := filepath.Join(tb.TempDir(), "public")
	opts := Options{
		Out: out, Site: Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog: world.Catalog, Timeout: 5 * time.Second,
		Client: outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(world.Catalog)}),
		Now:    clock.Now, Log: zerolog.Nop(), Adapters: feed.Adapters(),
	}
	world.Set(scheduleUnreadable, func(p *buildtest.Page) { p.FeedBroken = true })
	start, end := t0.Add(10*time.Hour), t0.Add(13*time.Hour)
	sched := githubSchedule{rand.New(rand.NewPCG(seed, seed))}
	res := scheduleResult{coverage: map[string]float64{}, sources: map[string]api.CoverageSources{},
		uptime: map[string]*float64{}, dataSince: map[string]*time.Time{}}
	stop := t0.Add(25 * time.Hour)
	for {
		now := clock.Now()
		world.Set(scheduleIncident, func(p *buildtest.Page) {
			p.Status, p.Incidents = api.Operational, nil
			switch {
			case !now.Before(end):
				resolved := end
				p.Incidents = []buildtest.Incident{{ID: "sim1", Name: "Elevated errors on the API", Severity: api.Major, StartedAt: start, ResolvedAt: &resolved}}
			case !now.Before(start):
				p.Status = api.PartialOutage
				p.Incidents = []buildtest.Incident{{ID: "sim1", Name: "Elevated errors on the API", Severity: api.Major, StartedAt: start}}
			}
		})
		if _, err := Build(context.Background(), opts); err != nil {
			tb.Fatalf("build at %s: %v", now, err)
		}
		res.builds++
		gap := sched.next()
		if now.Add(gap).After(stop) {
			break
		}
		clock.Advance(gap)
	}
	for _, svc := range cat.Services {
		data, err := os.ReadFile(filepath.Join(out, snapshot.ServiceFile(svc.Slug)))
		if err != nil {
			tb.Fatal(err)
		}
		var doc api.ServiceDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			tb.Fatal(err)
		}
		res.coverage[svc.Slug], res.sources[svc.Slug], res.uptime[svc.Slug] = doc.UptimeCoverage.H24, doc.UptimeCoverageSources.H24, doc.Uptime.H24
		res.dataSince[svc.Slug] = doc.DataSince
	}
	return res
}

// publishesTimeline reports whether a service's page lists its incident
// timeline (a Statuspage or incident.io page with an incidents list).
func publishesTimeline(svc catalog.Service) bool {
	return (svc.Feed.Format == catalog.FormatStatuspage || svc.Feed.Format == catalog.FormatIncidentIO) && svc.Feed.IncidentsURL != ""
}

// scheduleCatalog is the default catalog, or only the services named.
func scheduleCatalog(tb testing.TB, slugs ...string) catalog.Catalog {
	tb.Helper()
	cat, err := catalog.Default()
	if err != nil {
		tb.Fatal(err)
	}
	if len(slugs) > 0 {
		cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool { return !slices.Contains(slugs, svc.Slug) })
	}
	return cat
}

// TestGitHubSchedule simulates a day of builds on GitHub's schedule: every
// service whose page publishes its incident timeline and can be read is
// covered for at least 90 % of the 24-hour window, most of it from the
// timeline; the unreadable page gets no timeline credit; and the incident
// that the sparse builds mostly saw on the timeline counts as downtime.
//
// A simulated day is 50 builds, a soak run: it runs with -tags long (once
// in CI, without the race detector, which the other build tests cover),
// not in every run of the suite, where it cost a minute under -race.
func TestGitHubSchedule(t *testing.T) {
	t.Parallel()
	if !buildtest.Long {
		t.Skip("a day of builds: a soak run, with -tags long")
	}
	// Five services, one of each kind, for speed (the benchmark runs the
	// whole catalog): the incident's page and another timeline page
	// (incident.io and Statuspage), the unreadable one, a readable page
	// without a timeline (Google Cloud's) and a service without a page.
	cat := scheduleCatalog(t, scheduleIncident, scheduleUnreadable, "cursor", "google-gemini", "mistral")
	if len(cat.Services) != 5 {
		t.Fatalf("%d services in the simulated catalog", len(cat.Services))
	}
	// One seed: a simulated day is 50 builds, each published to disk. This
	// one found a history set aside as corrupt (an hour credited in
	// fractional-second pieces added up to 3600.0000000000005 s).
	for _, seed := range []uint64{3} {
		res := simulateSchedule(t, seed, cat)
		t.Logf("seed %d: %d builds in 25 h", seed, res.builds)
		for _, svc := range cat.Services {
			cov, src := res.coverage[svc.Slug], res.sources[svc.Slug]
			t.Logf("  %-16s coverage %.3f (checks %.3f, timeline %.3f)", svc.Slug, cov, src.Checks, src.Timeline)
			if since := res.dataSince[svc.Slug]; since == nil || !since.Equal(t0) {
				t.Errorf("%s: dataSince %v, want the first build's %s: its history was lost", svc.Slug, since, t0)
			}
			if src.Checks+src.Timeline > cov+0.002 {
				t.Errorf("%s: checks %.3f + timeline %.3f exceed the coverage %.3f", svc.Slug, src.Checks, src.Timeline, cov)
			}
			switch {
			case svc.Slug == scheduleUnreadable:
				if src.Timeline != 0 || cov >= 0.9 {
					t.Errorf("%s (page unreadable): coverage %.3f, timeline %.3f; want no timeline credit", svc.Slug, cov, src.Timeline)
				}
			case publishesTimeline(svc):
				if cov < 0.9 || src.Timeline <= 0 {
					t.Errorf("%s: coverage %.3f (timeline %.3f), want ≥ 0.9", svc.Slug, cov, src.Timeline)
				}
			default:
				// No timeline to bridge the gaps with: checks alone.
				if src.Timeline != 0 {
					t.Errorf("%s (no timeline): timeline credit %.3f", svc.Slug, src.Timeline)
				}
			}
		}
		// Three hours of partial outage (30 % downtime) in 24: 96.25 %. A
		// check's own status holds for MaxHold before the timeline takes
		// over, so each edge of the incident may move by up to one hold
		// (0.3 × 15 min of 24 h = 0.3125 points). Without the timeline, the
		// builds alone would have seen a fraction of it.
		if up := res.uptime[scheduleIncident]; up == nil || *up < 96.25-0.3125 || *up > 96.25+0.3125 {
			t.Errorf("%s uptime %s, want 96.25 ± 0.3125 (the incident's three hours of partial outage)", scheduleIncident, history.FormatPercent(up))
		}
	}
}

// BenchmarkGitHubSchedule runs simulated days, one seed per iteration, and
// reports over all of them the 24-hour coverage they leave: the lowest of
// the pages that publish their timeline, the mean share of it from our
// checks alone (what coverage was before the timeline counted), the mean
// of the readable pages without a timeline, and the unreadable page's.
func BenchmarkGitHubSchedule(b *testing.B) {
	cat := scheduleCatalog(b)
	var timeline, checks, others, unreadable, builds []float64
	// b.N, not b.Loop: Go 1.26.8's compiler crashes on this loop body
	// under b.Loop (an internal compiler error in iter).
	for i := range b.N {
		res := simulateSchedule(b, uint64(i)+1, cat)
		builds = append(builds, float64(res.builds))
		unreadable = append(unreadable, res.coverage[scheduleUnreadable])
		for _, svc := range cat.Services {
			switch {
			case svc.Slug == scheduleUnreadable:
			case publishesTimeline(svc):
				timeline = append(timeline, res.coverage[svc.Slug])
				checks = append(checks, res.sources[svc.Slug].Checks)
			case svc.Feed.Format != catalog.FormatNone:
				others = append(others, res.coverage[svc.Slug])
			}
		}
	}
	b.ReportMetric(slices.Min(timeline), "cov24h-timeline-min")
	b.ReportMetric(mean(checks), "cov24h-checks-only")
	b.ReportMetric(mean(others), "cov24h-no-timeline")
	b.ReportMetric(slices.Max(unreadable), "cov24h-unreadable-max")
	b.ReportMetric(mean(builds), "builds/day")
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
