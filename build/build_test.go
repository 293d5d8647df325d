package build

import (
	"cmp"
	"context"
	"encoding/json"
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

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// harness runs build cycles against a fake world.
type harness struct {
	t     testing.TB
	world *buildtest.World
	clock *buildtest.Clock
	out   string
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return newHarnessWith(t, cat)
}

// newHarnessWith runs builds of cat against a fake world on a fake clock.
func newHarnessWith(t testing.TB, cat catalog.Catalog) *harness {
	t.Helper()
	h := &harness{t: t, world: buildtest.NewWorld(t, cat), clock: buildtest.NewClock(t0), out: filepath.Join(t.TempDir(), "public")}
	h.world.Clock = h.clock.Now
	return h
}

// everyFormat is the default catalog with one more service for each format
// that no tracked service speaks, so that a world built from it speaks
// every format of feed.Formats. The tracked services keep their own.
func everyFormat(t *testing.T) catalog.Catalog {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	spoken := map[catalog.FeedFormat]bool{}
	for _, svc := range cat.Services {
		spoken[svc.Feed.Format] = true
	}
	for _, f := range feed.Formats() {
		if spoken[f.ID] {
			continue
		}
		host := "spare-" + string(f.ID) + ".example"
		svc := catalog.Service{
			Slug: "spare-" + string(f.ID), Name: "Spare " + f.Name, Category: catalog.Categories[0], Domain: host,
			URL: "https://" + host, StatusPage: "https://status." + host, ProbeURL: "https://api." + host + "/v1",
			Feed: catalog.Feed{Format: f.ID, Note: "A format no tracked service speaks, for the tests."},
		}
		if f.ID != catalog.FormatNone {
			svc.Feed.URL = svc.StatusPage + "/feed"
		}
		cat.Services = append(cat.Services, svc)
	}
	if err := cat.Validate(); err != nil {
		t.Fatal(err)
	}
	return cat
}

func (h *harness) options() Options {
	return Options{
		Out:      h.out,
		Site:     Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog:  h.world.Catalog,
		Timeout:  5 * time.Second,
		Client:   outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(h.world.Catalog)}),
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
		h.t.Fatalf("build at %s: %v", h.clock.Now(), err)
	}
	h.clock.Advance(time.Minute)
	return res
}

func (h *harness) service(slug string) api.ServiceDoc {
	h.t.Helper()
	var doc api.ServiceDoc
	h.read(snapshot.ServiceFile(slug), &doc)
	return doc
}

func (h *harness) read(name string, v any) {
	h.t.Helper()
	readSnapshotFile(h.t, h.out, name, v)
}

// readSnapshotFile decodes the JSON file name of the snapshot folder out.
func readSnapshotFile(t testing.TB, out, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// calm is a service's status in a calm world: operational where a page
// says so; unknown where there is no page, since the host answering our
// keyless probe cannot show that the service works.
func calm(svc catalog.Service) api.Status {
	if svc.Feed.Format == catalog.FormatNone {
		return api.Unknown
	}
	return api.Operational
}

func TestBuildCalmWorld(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, everyFormat(t))
	res := h.cycle()
	for _, svc := range h.world.Catalog.Services {
		if got := res.Statuses[svc.Slug]; got != calm(svc) {
			t.Errorf("%s: status %s, want %s", svc.Slug, got, calm(svc))
		}
		// Every service's official feed is read, whatever its format.
		doc := h.service(svc.Slug)
		if svc.Feed.Format == catalog.FormatNone {
			if doc.Sources.Feed.State != api.FeedNone || doc.Sources.Feed.Note == "" {
				t.Errorf("%s: a service without a feed must say why: %+v", svc.Slug, doc.Sources.Feed)
			}
			want := api.BasisNone // nothing to go on
			if svc.ProbeURL != "" {
				want = api.BasisProbe // the host answers, which alone is unknown
			}
			if doc.Basis != want {
				t.Errorf("%s: basis %s, want %s", svc.Slug, doc.Basis, want)
			}
			continue
		}
		if doc.Basis != api.BasisOfficial {
			t.Errorf("%s (%s): basis %s, want official", svc.Slug, svc.Feed.Format, doc.Basis)
		}
		if doc.Sources.Feed.State != api.FeedOK || doc.Sources.Feed.Status != api.Operational {
			t.Errorf("%s (%s): feed %+v", svc.Slug, svc.Feed.Format, doc.Sources.Feed)
		}
	}
	var status api.StatusDoc
	h.read(snapshot.FileStatus, &status)
	if len(status.Services) != len(h.world.Catalog.Services) || status.License != "CC-BY-4.0" || status.Status != "ok" {
		t.Fatalf("status.json: %d services, license %q, status %q", len(status.Services), status.License, status.Status)
	}
	for _, name := range []string{snapshot.FileManifest, snapshot.FileIncidents, snapshot.FileExport, snapshot.FileOpenAPI, snapshot.FileHistory} {
		if _, err := os.Stat(filepath.Join(h.out, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	doc := h.service("anthropic")
	if doc.Sources.Probe.State != api.ProbeOK || doc.Sources.Probe.HTTPStatus != 401 {
		t.Errorf("anthropic probe = %+v", doc.Sources.Probe)
	}
	if doc := h.service("azure-openai"); doc.Sources.Probe.State != api.ProbeNone {
		t.Errorf("azure-openai has no probe URL, probe = %+v", doc.Sources.Probe)
	}
}

// TestBuildEveryFormatDeclaresStatus scripts a non-operational state on one
// service of each feed format and checks the status read back.
func TestBuildEveryFormatDeclaresStatus(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, everyFormat(t))
	// The first service of each format declares one of the states the
	// format can declare other than operational, in turn; every other
	// service stays calm.
	want := map[string]api.Status{}
	for n, f := range feed.Formats() {
		if f.Adapter == nil {
			continue
		}
		states := slices.DeleteFunc(slices.Clone(f.Declares), func(s api.Status) bool { return s == api.Operational })
		at := slices.IndexFunc(h.world.Catalog.Services, func(svc catalog.Service) bool { return svc.Feed.Format == f.ID })
		if len(states) == 0 || at < 0 {
			t.Fatalf("%s: no state but operational, or no service", f.ID)
		}
		want[h.world.Catalog.Services[at].Slug] = states[n%len(states)]
	}
	for slug, st := range want {
		h.world.Set(slug, func(p *buildtest.Page) { p.Status = st })
	}
	res := h.cycle()
	for _, svc := range h.world.Catalog.Services {
		if got := res.Statuses[svc.Slug]; got != cmp.Or(want[svc.Slug], calm(svc)) {
			t.Errorf("%s (%s): %s, want %s", svc.Slug, svc.Feed.Format, got, cmp.Or(want[svc.Slug], calm(svc)))
		}
	}
}

func TestBuildOfficialIncidentLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	started := t0.Add(-10 * time.Minute)
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Status = api.MajorOutage
		p.Incidents = []buildtest.Incident{{ID: "abc123", Name: "Elevated errors on Claude API", Severity: api.Critical, StartedAt: started}}
	})
	if got := h.cycle().Statuses["anthropic"]; got != api.MajorOutage {
		t.Fatalf("status during outage = %s, want major_outage", got)
	}
	doc := h.service("anthropic")
	if len(doc.Incidents) != 1 {
		t.Fatalf("incidents = %+v", doc.Incidents)
	}
	inc := doc.Incidents[0]
	if inc.ID != "anthropic-abc123" || inc.Severity != api.Critical || !inc.StartedAt.Equal(started) || inc.EndedAt != nil || inc.Source != api.SourceOfficial {
		t.Fatalf("open incident = %+v", inc)
	}

	resolved := h.clock.Now().Add(-30 * time.Second)
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Status = api.Operational
		p.Incidents[0].ResolvedAt = &resolved
	})
	if got := h.cycle().Statuses["anthropic"]; got != api.Operational {
		t.Fatalf("status after recovery = %s", got)
	}
	doc = h.service("anthropic")
	if len(doc.Incidents) != 1 || doc.Incidents[0].EndedAt == nil || !doc.Incidents[0].EndedAt.Equal(resolved) {
		t.Fatalf("resolved incident = %+v", doc.Incidents)
	}
	var list api.IncidentList
	h.read(snapshot.FileIncidents, &list)
	if len(list.Incidents) != 1 || list.Incidents[0].ID != "anthropic-abc123" {
		t.Fatalf("incidents.json = %+v", list.Incidents)
	}
}

// TestBuildProbeIncident: our probes fail while one page stays calm and
// another service has no page. After api.ProbeIncidentAfter failures our own
// incident opens, and our measurement shows in the status, with the calm
// page's disagreement published; it recovers after history.ProbeRecoveryAfter
// answers, never reading operational beside an open incident of ours.
func TestBuildProbeIncident(t *testing.T) {
	t.Parallel()
	// Two failing services of six: not most of them, so not our network.
	h := newHarnessWith(t, scheduleCatalog(t, "perplexity", "mistral", "anthropic", "cohere", "openai", "google-gemini"))
	h.cycle() // calm: operational where a page says so, unknown without one
	// perplexity's page still says operational; mistral has no page.
	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = true })
	h.world.Set("mistral", func(p *buildtest.Page) { p.APIDown = true })
	firstFailure := h.clock.Now()
	for i := 1; i < api.ProbeIncidentAfter; i++ {
		res := h.cycle()
		// The page's word stands; without one, too few failures are no
		// outage.
		for slug, want := range map[string]api.Status{"perplexity": api.Operational, "mistral": api.Unknown} {
			if got := res.Statuses[slug]; got != want {
				t.Fatalf("failure %d: %s status %s, want %s", i, slug, got, want)
			}
			if doc := h.service(slug); len(doc.Incidents) != 0 || doc.Sources.Disagreement != nil {
				t.Fatalf("failure %d: %s opened an incident or a disagreement too early: %+v", i, slug, doc)
			}
		}
	}
	res := h.cycle()
	for _, slug := range []string{"perplexity", "mistral"} {
		if got := res.Statuses[slug]; got != api.MajorOutage {
			t.Errorf("%s: status %s, want major_outage (our probes have failed %d times)", slug, got, api.ProbeIncidentAfter)
		}
		incs := h.service(slug).Incidents
		if len(incs) != 1 || incs[0].Source != api.SourceProbe || !incs[0].StartedAt.Equal(firstFailure) || incs[0].EndedAt != nil {
			t.Fatalf("%s: probe incident = %+v", slug, incs)
		}
	}
	dis := h.service("perplexity").Sources.Disagreement
	if dis == nil || dis.Official != api.Operational || dis.Measured != api.MajorOutage || !dis.Since.Equal(firstFailure) || dis.Detail == "" {
		t.Fatalf("perplexity: disagreement = %+v, want the page's operational overruled since %s", dis, firstFailure)
	}
	if dis := h.service("mistral").Sources.Disagreement; dis != nil {
		t.Errorf("mistral has no page to disagree with: %+v", dis)
	}

	h.world.Set("perplexity", func(p *buildtest.Page) { p.APIDown = false })
	firstSuccess := h.clock.Now()
	if got := h.cycle().Statuses["perplexity"]; got != api.Degraded {
		t.Errorf("after one success: %s, want degraded while our incident is open", got)
	}
	doc := h.service("perplexity")
	if doc.Incidents[0].EndedAt != nil || doc.Sources.Disagreement == nil || doc.Sources.Disagreement.Measured != api.Degraded {
		t.Fatalf("after one success: incident %+v, disagreement %+v", doc.Incidents[0], doc.Sources.Disagreement)
	}
	if got := h.cycle().Statuses["perplexity"]; got != api.Operational {
		t.Errorf("after two successes: %s, want operational", got)
	}
	doc = h.service("perplexity")
	if len(doc.Incidents) != 1 || doc.Incidents[0].EndedAt == nil || !doc.Incidents[0].EndedAt.Equal(firstSuccess) || doc.Incidents[0].Status != "resolved" {
		t.Fatalf("probe incident after recovery = %+v", doc.Incidents)
	}
	if doc.Sources.Disagreement != nil {
		t.Errorf("disagreement after recovery: %+v", doc.Sources.Disagreement)
	}
	// The status shows in uptime: checks at minutes 0 to 5, rendered at 5.
	// The outage counts from the first failed probe (minute 1, when our
	// incident starts, though the page's operational held until the third)
	// to the first answer (minute 4); the recovering minute (degraded)
	// counts as up: 2 of 5 up.
	if up := doc.Uptime.H24; up == nil || *up != 40 {
		t.Errorf("perplexity 24h uptime = %v, want 40", deref(up))
	}
}

// TestBuildFlakyFeedKeepsOfficialStatus: a feed that fails every other cycle
// while the API host still answers must not flap an official outage.
func TestBuildFlakyFeedKeepsOfficialStatus(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, scheduleCatalog(t, "groq"))
	h.world.Set("groq", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	for i := 0; i < 6; i++ {
		h.world.Set("groq", func(p *buildtest.Page) { p.FeedBroken = i%2 == 1 })
		if got := h.cycle().Statuses["groq"]; got != api.MajorOutage {
			t.Fatalf("cycle %d (feed broken: %v): %s, want major_outage", i, i%2 == 1, got)
		}
	}
	// A feed silent for longer than history.MaxHold no longer speaks, and
	// the host answering our probe cannot show the service works.
	h.world.Set("groq", func(p *buildtest.Page) { p.FeedBroken = true })
	h.clock.Advance(history.MaxHold)
	if got := h.cycle().Statuses["groq"]; got != api.Unknown {
		t.Fatalf("after the hold: %s, want unknown (the probe answers, nothing official says more)", got)
	}
}

func TestBuildOurNetworkDown(t *testing.T) {
	t.Parallel()
	// Five probed services: more than the rule of our own network needs
	// (history.OwnNetworkMinProbes) to blame it.
	h := newHarnessWith(t, scheduleCatalog(t, "openai", "anthropic", "groq", "mistral", "cohere"))
	h.cycle()
	h.world.SetAll(func(p *buildtest.Page) { p.APIDown, p.FeedBroken = true, true })
	for i := 0; i < api.ProbeIncidentAfter+2; i++ {
		res := h.cycle()
		for slug, st := range res.Statuses {
			if st != api.Unknown {
				t.Fatalf("cycle %d: %s is %s, want unknown when our own network is down", i, slug, st)
			}
		}
	}
	var list api.IncidentList
	h.read(snapshot.FileIncidents, &list)
	if len(list.Incidents) != 0 {
		t.Fatalf("incidents opened for our own outage: %+v", list.Incidents)
	}
	if doc := h.service("openai"); doc.Sources.Probe.State != api.ProbeDiscarded {
		t.Errorf("openai probe state = %q, want discarded", doc.Sources.Probe.State)
	}
}

func TestBuildInterruptedKeepsPreviousSnapshot(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	h := newHarness(t)
	h.cycle()
	garbage := []byte(`{"version":1,"services":{"openai":`)
	if err := os.WriteFile(filepath.Join(h.out, snapshot.FileHistory), garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	now := h.clock.Now()
	h.cycle()
	kept, err := os.ReadFile(filepath.Join(h.out, snapshot.CorruptHistoryName(now)))
	if err != nil || string(kept) != string(garbage) {
		t.Fatalf("corrupt history not kept: %q, %v", kept, err)
	}
	if _, _, err := history.ReadHistory(h.out); err != nil {
		t.Fatalf("new history unreadable: %v", err)
	}
}

func TestBuildHistoryCarriesOver(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, scheduleCatalog(t, "openai"))
	for i := 0; i < 3; i++ {
		h.cycle()
	}
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.MajorOutage })
	h.cycle()
	h.world.Set("openai", func(p *buildtest.Page) { p.Status = api.Operational })
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

// One absurd time in one feed used to stop every build (year 10000 in UTC
// cannot be encoded as JSON): now the item is dropped and the cycle goes on.
func TestBuildSurvivesAbsurdFeedTimes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	absurd := time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", -3600))
	h.world.Set("anthropic", func(p *buildtest.Page) {
		p.Status = api.Degraded
		p.Incidents = []buildtest.Incident{
			{ID: "absurd", Name: "From the far future", Severity: api.Major, StartedAt: absurd},
			{ID: "real", Name: "Elevated errors on Claude API", Severity: api.Minor, StartedAt: t0.Add(-time.Hour)},
		}
	})
	res := h.cycle()
	if res.Statuses["anthropic"] != api.Degraded || res.Statuses["openai"] != api.Operational {
		t.Fatalf("statuses %v", res.Statuses)
	}
	if incs := h.service("anthropic").Incidents; len(incs) != 1 || incs[0].ID != "anthropic-real" {
		t.Errorf("incidents %+v, want only the real one", incs)
	}
}
