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
		Client:   NewClient(ClientOptions{AllowedURLs: CatalogURLs(h.world.Catalog)}),
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
		if got := res.Statuses[svc.Slug]; got != snapshot.Operational {
			t.Errorf("%s: status %s, want operational", svc.Slug, got)
		}
		// Every service's official feed is read, whatever its format.
		if doc := h.service(svc.Slug); doc.Sources.Feed.State != snapshot.FeedOK || doc.Sources.Feed.Status != snapshot.Operational {
			t.Errorf("%s (%s): feed %+v", svc.Slug, svc.Feed.Format, doc.Sources.Feed)
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
	if doc.Sources.Probe.State != snapshot.ProbeOK || doc.Sources.Probe.HTTPStatus != 401 {
		t.Errorf("anthropic probe = %+v", doc.Sources.Probe)
	}
	if doc := h.service("azure-openai"); doc.Sources.Probe.State != snapshot.ProbeNone {
		t.Errorf("azure-openai has no probe URL, probe = %+v", doc.Sources.Probe)
	}
}

// TestBuildEveryFormatDeclaresStatus scripts a non-operational state on one
// service of each feed format and checks the status read back.
func TestBuildEveryFormatDeclaresStatus(t *testing.T) {
	h := newHarness(t)
	want := map[string]snapshot.Status{
		"anthropic":     snapshot.MajorOutage,   // statuspage
		"openai":        snapshot.Degraded,      // incidentio
		"perplexity":    snapshot.PartialOutage, // instatus
		"together":      snapshot.PartialOutage, // betterstack
		"mistral":       snapshot.MajorOutage,   // checkly
		"google-gemini": snapshot.PartialOutage, // gcloud
		"aws-bedrock":   snapshot.Degraded,      // awshealth
		"xai":           snapshot.PartialOutage, // rss
		"deepseek":      snapshot.Maintenance,   // flashduty
		"openrouter":    snapshot.MajorOutage,   // html
	}
	for slug, st := range want {
		h.world.Set(slug, func(p *buildtest.Page) { p.Status = st })
	}
	res := h.cycle()
	for slug, st := range want {
		if got := res.Statuses[slug]; got != st {
			t.Errorf("%s: %s, want %s", slug, got, st)
		}
	}
	if got := res.Statuses["cohere"]; got != snapshot.Operational {
		t.Errorf("cohere: %s, want operational", got)
	}
}

func TestBuildOfficialIncidentLifecycle(t *testing.T) {
	h := newHarness(t)
	started := t0.Add(-10 * time.Minute)
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Status = snapshot.MajorOutage
		p.Incidents = []buildtest.Incident{{ID: "abc123", Name: "Elevated errors on Claude API", Severity: snapshot.Critical, StartedAt: started}}
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
		p.Status = snapshot.Operational
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
	// perplexity's page still says operational; mistral's page is broken too.
	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = true })
	h.world.Set("mistral", func(p *buildtest.Page) { p.APIDown, p.FeedBroken = true, true })
	firstFailure := h.clock.t
	for i := 1; i < ProbeIncidentAfter; i++ {
		res := h.cycle()
		for _, slug := range []string{"perplexity", "mistral"} {
			if got := res.Statuses[slug]; got != snapshot.Operational {
				t.Fatalf("failure %d: %s status %s, want operational kept (no flapping)", i, slug, got)
			}
			if n := len(h.service(slug).Incidents); n != 0 {
				t.Fatalf("failure %d: %s has %d incidents opened too early", i, slug, n)
			}
		}
	}
	res := h.cycle()
	// The official page's word wins while it is read; a silent page lets our
	// probes decide.
	if got := res.Statuses["perplexity"]; got != snapshot.Operational {
		t.Errorf("perplexity: status %s, want operational (its feed says so)", got)
	}
	if got := res.Statuses["mistral"]; got != snapshot.MajorOutage {
		t.Errorf("mistral: status %s, want major_outage (feed silent, probes failing)", got)
	}
	for _, slug := range []string{"perplexity", "mistral"} {
		incs := h.service(slug).Incidents
		if len(incs) != 1 || incs[0].Source != snapshot.SourceProbe || !incs[0].StartedAt.Equal(firstFailure) || incs[0].EndedAt != nil {
			t.Fatalf("%s: probe incident = %+v", slug, incs)
		}
	}

	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = false })
	firstSuccess := h.clock.t
	h.cycle()
	if incs := h.service("perplexity").Incidents; incs[0].EndedAt != nil {
		t.Fatalf("closed after one success: %+v", incs[0])
	}
	h.cycle()
	incs := h.service("perplexity").Incidents
	if len(incs) != 1 || incs[0].EndedAt == nil || !incs[0].EndedAt.Equal(firstSuccess) || incs[0].Status != "resolved" {
		t.Fatalf("probe incident after recovery = %+v", incs)
	}
}

// TestBuildFlakyFeedKeepsOfficialStatus: a feed that fails every other cycle
// while the API host still answers must not flap an official outage.
func TestBuildFlakyFeedKeepsOfficialStatus(t *testing.T) {
	h := newHarness(t)
	h.world.Set("deepseek", func(p *buildtest.Page) { p.Status = snapshot.MajorOutage })
	for i := 0; i < 6; i++ {
		h.world.Set("deepseek", func(p *buildtest.Page) { p.FeedBroken = i%2 == 1 })
		if got := h.cycle().Statuses["deepseek"]; got != snapshot.MajorOutage {
			t.Fatalf("cycle %d (feed broken: %v): %s, want major_outage", i, i%2 == 1, got)
		}
	}
	// A feed silent for longer than snapshot.MaxHold no longer speaks.
	h.world.Set("deepseek", func(p *buildtest.Page) { p.FeedBroken = true })
	h.clock.Advance(snapshot.MaxHold)
	if got := h.cycle().Statuses["deepseek"]; got != snapshot.Operational {
		t.Fatalf("after the hold: %s, want operational (the probe answers)", got)
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
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = snapshot.MajorOutage })
	h.cycle()
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = snapshot.Operational })
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
