package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/snapshot"
)

// detectCycle is run's default cycle, against which the time to detect is
// stated.
const detectCycle = 60 * time.Second

// BenchmarkTimeToDetect measures how long a failure takes to show in what
// we publish — the service's status, the change log that /events streams
// and the status page — from the moment a loopback API host (or page)
// starts failing: the cycles it takes (the failure starting just after a
// cycle began, the worst case, so the next cycle is the first to see it),
// then, within the cycle that shows it, the confirming re-probes' waits
// (at their default 2 × 3 s, counted, not slept) and the build's own time.
// Reported: cycles, and the seconds to detect at run's 60 s cycle
// (cycles × 60 s + the in-cycle time). Run with -benchtime 1x.
func BenchmarkTimeToDetect(b *testing.B) {
	for _, sc := range []struct {
		name    string
		slug    string
		confirm bool
		fail    func(p *buildtest.Page)
		shows   api.Status
	}{
		{"hard_outage", "cohere", true, func(p *buildtest.Page) { p.APIDown = true }, api.MajorOutage},
		{"hard_outage_without_reprobes", "cohere", false, func(p *buildtest.Page) { p.APIDown = true }, api.MajorOutage},
		// The host keeps answering our keyless probe with 401.
		{"completion_only_529", "openai", true, func(p *buildtest.Page) { p.CompletionStatus = 529 }, api.Degraded},
		{"page_declared_incident", "anthropic", true, func(p *buildtest.Page) {
			p.Status = api.MajorOutage
			p.Incidents = []buildtest.Incident{{ID: "inc1", Name: "Elevated errors on the Messages API", Severity: api.Critical, StartedAt: t0}}
		}, api.MajorOutage},
	} {
		b.Run(sc.name, func(b *testing.B) {
			var cycles int
			var inCycle time.Duration
			for b.Loop() {
				cycles, inCycle = detect(b, sc.slug, sc.confirm, sc.fail, sc.shows)
			}
			b.ReportMetric(float64(cycles), "cycles")
			b.ReportMetric((time.Duration(cycles)*detectCycle + inCycle).Seconds(), "s-to-detect@60s")
		})
	}
}

// detect runs a calm cycle, starts the failure, and runs cycles until the
// status, the change log and the page show it.
func detect(b *testing.B, slug string, confirm bool, fail func(*buildtest.Page), shows api.Status) (int, time.Duration) {
	b.StopTimer()
	h := newHarness(b)
	sleep := &recordingSleep{}
	opts := func() Options {
		o := h.options()
		o.Completions = Completions{Keys: map[string]string{"OPENAI_API_KEY": "sk-bench"}}
		if confirm {
			o.Confirm = Confirm{Reprobes: 2, Spacing: 3 * time.Second, Sleep: sleep.Sleep}
		}
		return o
	}
	if _, err := Build(context.Background(), opts()); err != nil {
		b.Fatal(err)
	}
	h.clock.Advance(detectCycle)
	h.world.Set(slug, fail)
	b.StartTimer()
	for cycle := 1; cycle <= 10; cycle++ {
		sleep.waits = nil
		start := time.Now()
		if _, err := Build(context.Background(), opts()); err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if published(b, h.out, slug, shows) {
			var waited time.Duration
			for _, w := range sleep.waits {
				waited += w
			}
			return cycle, took + waited
		}
		h.clock.Advance(detectCycle)
	}
	b.Fatalf("%s never showed %s", slug, shows)
	return 0, 0
}

// published reports whether the snapshot shows slug at status in its
// service document, its change log and its page.
func published(b *testing.B, out, slug string, status api.Status) bool {
	var doc api.ServiceDoc
	var changes api.ChangeList
	for name, v := range map[string]any{snapshot.ServiceFile(slug): &doc, snapshot.FileChanges: &changes} {
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := json.Unmarshal(data, v); err != nil {
			b.Fatal(err)
		}
	}
	logged := false
	for _, c := range changes.Changes {
		logged = logged || (c.Type == api.ChangeStatus && c.Service == slug && c.NewStatus == status)
	}
	page, err := os.ReadFile(filepath.Join(out, site.ServicePage(slug)))
	if err != nil {
		b.Fatal(err)
	}
	return doc.Status == status && logged && strings.Contains(string(page), `data-status="`+string(status)+`"`)
}
