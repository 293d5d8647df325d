package build

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// fakeClock is a settable clock for builds.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// harness runs build cycles against a fake world.
type harness struct {
	t     *testing.T
	world *buildtest.World
	clock *fakeClock
	out   string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	cat, err := snapshot.DefaultCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, world: buildtest.NewWorld(t, cat), clock: &fakeClock{t0}, out: filepath.Join(t.TempDir(), "public")}
}

func (h *harness) options() Options {
	return Options{
		Out:      h.out,
		Site:     Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog:  h.world.Catalog,
		Timeout:  5 * time.Second,
		Client:   NewClient(),
		Now:      h.clock.Now,
		Log:      zerolog.Nop(),
		Adapters: feed.Adapters(),
	}
}

// cycle runs one build and advances the clock by a minute afterwards.
func (h *harness) cycle() Result {
	h.t.Helper()
	res, err := Build(context.Background(), h.options())
	if err != nil {
		h.t.Fatalf("build at %s: %v", h.clock.t, err)
	}
	h.clock.Advance(time.Minute)
	return res
}

func (h *harness) service(slug string) snapshot.ServiceDoc {
	h.t.Helper()
	var doc snapshot.ServiceDoc
	h.read(snapshot.ServiceFile(slug), &doc)
	return doc
}

func (h *harness) read(name string, v any) {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.out, name))
	if err != nil {
		h.t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
}

func TestBuildCalmWorld(t *testing.T) {
	h := newHarness(t)
	res := h.cycle()
	for _, svc := range h.world.Catalog.Services {
		want := snapshot.Operational
		if svc.ProbeURL == "" && res.Statuses[svc.Slug] != snapshot.Operational {
			// Azure OpenAI has no probe and an RSS feed this build cannot read yet.
			want = snapshot.Unknown
		}
		if got := res.Statuses[svc.Slug]; got != want {
			t.Errorf("%s: status %s, want %s", svc.Slug, got, want)
		}
	}
	var status snapshot.StatusDoc
	h.read(snapshot.FileStatus, &status)
	if len(status.Services) != 26 || status.License != "CC-BY-4.0" || status.Status != "ok" {
		t.Fatalf("status.json: %d services, license %q, status %q", len(status.Services), status.License, status.Status)
	}
	for _, name := range []string{snapshot.FileManifest, snapshot.FileIncidents, snapshot.FileExport, snapshot.FileOpenAPI, snapshot.FileHistory} {
		if _, err := os.Stat(filepath.Join(h.out, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	doc := h.service("anthropic")
	if doc.Sources.Feed.State != snapshot.FeedOK || doc.Sources.Probe.State != snapshot.ProbeOK || doc.Sources.Probe.HTTPStatus != 401 {
		t.Errorf("anthropic sources = %+v", doc.Sources)
	}
	if doc := h.service("perplexity"); doc.Sources.Feed.State != snapshot.FeedUnsupported {
		t.Errorf("perplexity feed state = %q, want unsupported (probe-only until its adapter exists)", doc.Sources.Feed.State)
	}
}

func TestBuildOfficialIncidentLifecycle(t *testing.T) {
	h := newHarness(t)
	started := t0.Add(-10 * time.Minute)
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Indicator, p.Component = "major", "major_outage"
		p.Incidents = []buildtest.Incident{{ID: "abc123", Name: "Elevated errors on Claude API", Impact: "critical", StartedAt: started}}
	})
	if got := h.cycle().Statuses["anthropic"]; got != snapshot.MajorOutage {
		t.Fatalf("status during outage = %s, want major_outage", got)
	}
	doc := h.service("anthropic")
	if len(doc.Incidents) != 1 {
		t.Fatalf("incidents = %+v", doc.Incidents)
	}
	inc := doc.Incidents[0]
	if inc.ID != "anthropic-abc123" || inc.Severity != snapshot.Critical || !inc.StartedAt.Equal(started) || inc.EndedAt != nil || inc.Source != snapshot.SourceOfficial {
		t.Fatalf("open incident = %+v", inc)
	}

	resolved := h.clock.t.Add(-30 * time.Second)
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Indicator, p.Component = "none", "operational"
		p.Incidents[0].ResolvedAt = &resolved
	})
	if got := h.cycle().Statuses["anthropic"]; got != snapshot.Operational {
		t.Fatalf("status after recovery = %s", got)
	}
	doc = h.service("anthropic")
	if len(doc.Incidents) != 1 || doc.Incidents[0].EndedAt == nil || !doc.Incidents[0].EndedAt.Equal(resolved) {
		t.Fatalf("resolved incident = %+v", doc.Incidents)
	}
	var list snapshot.IncidentList
	h.read(snapshot.FileIncidents, &list)
	if len(list.Incidents) != 1 || list.Incidents[0].ID != "anthropic-abc123" {
		t.Fatalf("incidents.json = %+v", list.Incidents)
	}
}

func TestBuildProbeIncident(t *testing.T) {
	h := newHarness(t)
	h.cycle() // calm: operational
	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = true })
	firstFailure := h.clock.t
	for i := 1; i < ProbeIncidentAfter; i++ {
		if got := h.cycle().Statuses["perplexity"]; got != snapshot.Operational {
			t.Fatalf("failure %d: status %s, want operational kept (no flapping)", i, got)
		}
		if n := len(h.service("perplexity").Incidents); n != 0 {
			t.Fatalf("failure %d: %d incidents opened too early", i, n)
		}
	}
	if got := h.cycle().Statuses["perplexity"]; got != snapshot.MajorOutage {
		t.Fatalf("after %d failures: status %s, want major_outage", ProbeIncidentAfter, got)
	}
	incs := h.service("perplexity").Incidents
	if len(incs) != 1 || incs[0].Source != snapshot.SourceProbe || !incs[0].StartedAt.Equal(firstFailure) || incs[0].EndedAt != nil {
		t.Fatalf("probe incident = %+v", incs)
	}

	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = false })
	firstSuccess := h.clock.t
	h.cycle()
	if incs := h.service("perplexity").Incidents; incs[0].EndedAt != nil {
		t.Fatalf("closed after one success: %+v", incs[0])
	}
	h.cycle()
	incs = h.service("perplexity").Incidents
	if len(incs) != 1 || incs[0].EndedAt == nil || !incs[0].EndedAt.Equal(firstSuccess) || incs[0].Status != "resolved" {
		t.Fatalf("probe incident after recovery = %+v", incs)
	}
}

func TestBuildOurNetworkDown(t *testing.T) {
	h := newHarness(t)
	h.cycle()
	h.world.SetAll(func(p *buildtest.Page) { p.APIDown, p.FeedBroken = true, true })
	for i := 0; i < ProbeIncidentAfter+2; i++ {
		res := h.cycle()
		for slug, st := range res.Statuses {
			if st != snapshot.Unknown {
				t.Fatalf("cycle %d: %s is %s, want unknown when our own network is down", i, slug, st)
			}
		}
	}
	var list snapshot.IncidentList
	h.read(snapshot.FileIncidents, &list)
	if len(list.Incidents) != 0 {
		t.Fatalf("incidents opened for our own outage: %+v", list.Incidents)
	}
	if doc := h.service("openai"); doc.Sources.Probe.State != snapshot.ProbeDiscarded {
		t.Errorf("openai probe state = %q, want discarded", doc.Sources.Probe.State)
	}
}

func TestBuildInterruptedKeepsPreviousSnapshot(t *testing.T) {
	h := newHarness(t)
	h.cycle()
	before := readTree(t, h.out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, h.options()); err == nil {
		t.Fatal("cancelled build returned no error")
	}
	after := readTree(t, h.out)
	if len(after) != len(before) {
		t.Fatalf("files changed: %d before, %d after", len(before), len(after))
	}
	for name, data := range before {
		if string(after[name]) != string(data) {
			t.Errorf("%s changed by an interrupted build", name)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(h.out), ".public.staging-*"))
	if len(leftovers) != 0 {
		t.Errorf("staging leftovers: %v", leftovers)
	}
}

func TestBuildCorruptHistoryIsKept(t *testing.T) {
	h := newHarness(t)
	h.cycle()
	garbage := []byte(`{"version":1,"services":{"openai":`)
	if err := os.WriteFile(filepath.Join(h.out, snapshot.FileHistory), garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	now := h.clock.t
	h.cycle()
	kept, err := os.ReadFile(filepath.Join(h.out, snapshot.CorruptHistoryName(now)))
	if err != nil || string(kept) != string(garbage) {
		t.Fatalf("corrupt history not kept: %q, %v", kept, err)
	}
	if _, _, err := snapshot.ReadHistory(h.out); err != nil {
		t.Fatalf("new history unreadable: %v", err)
	}
}

func TestBuildHistoryCarriesOver(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 3; i++ {
		h.cycle()
	}
	h.world.Set("openai", func(p *buildtest.Page) { p.Indicator, p.Component = "major", "major_outage" })
	h.cycle()
	h.world.Set("openai", func(p *buildtest.Page) { p.Indicator, p.Component = "none", "operational" })
	h.cycle()
	// Checks at minutes 0..4, rendered at minute 4: operational from 0 to 3,
	// major outage from 3 to 4: 3 of 4 observed minutes up.
	up := h.service("openai").Uptime.H24
	if up == nil || *up != 75 {
		t.Fatalf("openai 24h uptime = %v, want 75", deref(up))
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[p] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
