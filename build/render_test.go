package build

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// goldenInput is a fixed cycle: two hours of history, then one cycle's
// observations through Assemble, so that the golden files show the rules
// end to end. openai's page declares a partial outage, with an open
// incident. anthropic's page has not listed the scoped component for 30
// minutes (scope_matched_nothing), longer than its last word may stand in,
// while its host answers our keyless probe with 401, which alone is
// unknown, never operational; it also has an ended incident of ours.
// Azure's feed fails and it has no probe: nothing to go on.
func goldenInput(t *testing.T) (Site, catalog.Catalog, *history.History, map[string]ServiceState, time.Time) {
	t.Helper()
	full, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var cat catalog.Catalog
	for _, slug := range []string{"openai", "anthropic", "azure-openai"} {
		svc, _ := full.Lookup(slug)
		cat.Services = append(cat.Services, svc)
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	h := history.New()
	for i := 120; i > 0; i -= 10 {
		at := now.Add(-time.Duration(i) * time.Minute)
		openai := api.Operational
		if i <= 30 {
			openai = api.PartialOutage
		}
		h.Track("openai").Record(at, openai, new(180.0))
		anthropic := api.Operational // read, then held for MaxHold
		if i <= 20 {
			anthropic = api.Unknown
		}
		h.Track("anthropic").Record(at, anthropic, new(95.5))
		h.Track("azure-openai").Record(at, api.Unknown, nil)
	}
	lastRead := now.Add(-40 * time.Minute)
	sh := h.Track("anthropic")
	sh.LastFeedStatus, sh.LastFeedAt = api.Operational, lastRead
	sh.Feed = history.FeedHealth{LastOKAt: lastRead, Failures: 3, FailingSince: now.Add(-30 * time.Minute), LastFailure: api.FailureScope}
	ended := now.Add(-20 * time.Hour)
	open := api.Incident{ID: "openai-01JX", Service: "openai", Headline: "Elevated error rates on Chat Completions", Severity: api.Major,
		StartedAt: now.Add(-30 * time.Minute), Status: "identified", Source: api.SourceOfficial,
		URL: "https://status.openai.com/incidents/01JX", UpdatedAt: now.Add(-5 * time.Minute)}
	h.Incidents = []api.Incident{open,
		{ID: "anthropic-probe-1761994800", Service: "anthropic", Headline: "Anthropic API not reachable from aistatus probes",
			Severity: api.Major, StartedAt: now.Add(-21 * time.Hour), EndedAt: &ended, Status: "resolved",
			Source: api.SourceProbe, URL: "https://status.claude.com", UpdatedAt: ended},
	}
	lat := func(v float64) *float64 { return &v }
	obs := map[string]Observation{
		"openai": {
			Feed:      api.FeedSource{Format: catalog.FormatIncidentIO, State: api.FeedOK, Status: api.PartialOutage},
			Incidents: []api.Incident{open},
			Probe:     api.ProbeSource{State: api.ProbeOK, LatencyMs: lat(180), HTTPStatus: 401},
		},
		"anthropic": {
			Feed: api.FeedSource{Format: catalog.FormatStatuspage, State: api.FeedError, Failure: api.FailureScope,
				Error: "none of the page's 6 components is in the scope of Anthropic: the page changed, or the scope needs updating"},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: lat(95.5), HTTPStatus: 401},
		},
		"azure-openai": {
			Feed: api.FeedSource{Format: catalog.FormatRSS, State: api.FeedError, Failure: api.FailureHTTP,
				Error: "GET https://rssfeed.azure.status.microsoft/en-us/status/feed/: HTTP 503 Service Unavailable"},
			Probe: api.ProbeSource{State: api.ProbeNone},
		},
	}
	for slug, o := range obs {
		svc, _ := cat.Lookup(slug)
		o.Feed.URL = svc.Feed.URL
		obs[slug] = o
	}
	states := Assemble(h, cat, obs, now, zerolog.Nop())
	site := Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test", APIOrigin: "https://api.aistatus.example"}
	return site, cat, h, states, now
}

// TestRenderGolden compares the API files of a fixed cycle with the golden
// files in testdata/golden (go test ./build -run Golden -update rewrites them).
func TestRenderGolden(t *testing.T) {
	t.Parallel()
	files, err := Render(goldenInput(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		snapshot.FileStatus, snapshot.ServiceFile("openai"), snapshot.ServiceFile("anthropic"), snapshot.ServiceFile("azure-openai"),
		snapshot.FileIncidents, snapshot.FileExport, snapshot.FileManifest, snapshot.FileHeaders, snapshot.FileRedirects, snapshot.FileSituation,
	} {
		t.Run(name, func(t *testing.T) {
			got, ok := files[name]
			if !ok {
				t.Fatalf("%s not rendered", name)
			}
			if name == snapshot.FileManifest {
				// The file list hashes every page and badge, so any change to
				// them would show here; TestRenderManifestFiles checks it.
				var m snapshot.Manifest
				if err := json.Unmarshal(got, &m); err != nil {
					t.Fatal(err)
				}
				m.Files, m.Generation = nil, ""
				got, _ = json.Marshal(m)
				got = append(got, '\n')
			}
			buildtest.Golden(t, strings.ReplaceAll(name, "/", "_"), got)
		})
	}
}

// TestRenderUptime checks the figures of the golden cycle: openai was
// operational for 90 minutes and in partial outage for the last 30, of which
// 30% counts as downtime: 100 × (120 − 9) / 120 = 92.5.
func TestRenderUptime(t *testing.T) {
	t.Parallel()
	docs := Documents(goldenInput(t))
	byslug := map[string]api.ServiceDoc{}
	for _, d := range docs.Services {
		byslug[d.Slug] = d
	}
	if up := byslug["openai"].Uptime.H24; up == nil || *up != 92.5 {
		t.Errorf("openai 24h = %v, want 92.5", deref(up))
	}
	if up := byslug["anthropic"].Uptime.D30; up == nil || *up != 100 {
		t.Errorf("anthropic 30d = %v, want 100", deref(up))
	}
	if up := byslug["azure-openai"].Uptime; up.H24 != nil || up.D7 != nil || up.D30 != nil {
		t.Errorf("azure-openai with no data has uptime %+v, want nulls", up)
	}
	if n := len(byslug["openai"].Incidents); n != 1 {
		t.Errorf("openai has %d incidents, want 1", n)
	}
}

// Rendering reads the history and never changes it: a service without
// history renders as never checked, and gains no entry.
func TestRenderLeavesHistoryAlone(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := history.New()
	if _, err := Render(Site{BaseURL: "https://aistatus.example", StaleAfter: time.Minute}, cat, h, nil, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if len(h.Services) != 0 {
		t.Errorf("rendering added %d services to the history", len(h.Services))
	}
}

// renderDefaultCatalog renders the golden input's cycle with the whole
// default catalog (the golden input's is cut to three services).
func renderDefaultCatalog(t *testing.T) (catalog.Catalog, snapshot.Files) {
	t.Helper()
	site, _, h, states, now := goldenInput(t)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(site, cat, h, states, now)
	if err != nil {
		t.Fatal(err)
	}
	return cat, files
}

// TestRenderStatesTheNumberOfServices: the OpenAPI description and the
// API index say how many services the build's catalog has, whichever
// catalog that is (--catalog), not a number kept by hand.
func TestRenderStatesTheNumberOfServices(t *testing.T) {
	t.Parallel()
	cat, files := renderDefaultCatalog(t)
	want := fmt.Sprintf("telling whether %d AI services are up", len(cat.Services))
	for _, name := range []string{snapshot.FileOpenAPI, snapshot.FileAPIIndex} {
		if !bytes.Contains(files[name], []byte(want)) {
			t.Errorf("%s does not say %q", name, want)
		}
	}
}

// TestRenderManifestFiles checks that the manifest lists every other
// rendered file with its exact size and hash, under a generation that its
// list proves, and that the generation follows the content.
func TestRenderManifestFiles(t *testing.T) {
	t.Parallel()
	site, _, h, states, now := goldenInput(t)
	cat, err := catalog.Default() // the golden input's is cut to three services
	if err != nil {
		t.Fatal(err)
	}
	files, err := Render(site, cat, h, states, now)
	if err != nil {
		t.Fatal(err)
	}
	var m snapshot.Manifest
	if err := json.Unmarshal(files[snapshot.FileManifest], &m); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckFiles(); err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != len(files)-1 {
		t.Errorf("manifest lists %d files, %d others were rendered", len(m.Files), len(files)-1)
	}
	for _, f := range m.Files {
		data, ok := files[f.Path]
		if !ok {
			t.Errorf("manifest lists %s, which was not rendered", f.Path)
			continue
		}
		sum := sha256.Sum256(data)
		if f.Size != int64(len(data)) || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: listed as %d bytes %s, rendered %d bytes %x", f.Path, f.Size, f.SHA256, len(data), sum)
		}
	}
	again, err := Render(site, cat, h, states, now)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again[snapshot.FileManifest], files[snapshot.FileManifest]) {
		t.Error("the same cycle rendered twice gives two manifests")
	}
	later, err := Render(site, cat, h, states, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var m2 snapshot.Manifest
	if err := json.Unmarshal(later[snapshot.FileManifest], &m2); err != nil {
		t.Fatal(err)
	}
	if m2.Generation == m.Generation {
		t.Error("a later cycle has the same generation")
	}
}

// TestRenderPublishesItsCatalog: the snapshot's catalog.json reads back as
// the catalog it was rendered from, so that a replica's /check matches and
// probes what the build watched.
func TestRenderPublishesItsCatalog(t *testing.T) {
	t.Parallel()
	cat, files := renderDefaultCatalog(t)
	got, err := catalog.Parse(files[snapshot.FileCatalog])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cat) {
		t.Errorf("%s reads back as another catalog than the one rendered", snapshot.FileCatalog)
	}
}
