package build

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/buildtest"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/notify"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// unplacedLogged is the message trackUnplaced logs for a new component.
const unplacedLogged = "a component of the official page is in no place"

// TestUnplacedComponentsThroughBuilds serves a real captured page, then the
// same page with one component added (a copy of one of its real elements
// under a new id and name, in major outage: a component the world added
// since the catalog was written), through full builds with the service's
// catalog entry. A component in no place is listed in sources.json under
// the service with the firstSeen of its first build, kept over the next,
// logged once over both, and changes no surface's status nor the API's; it
// is dropped when the page no longer lists it. On a page whose API scope is
// the whole page (Cohere), a new component the exclusions do not take out
// counts for the API, as the catalog says, and the roster alarm names it.
func TestUnplacedComponentsThroughBuilds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, slug, capture string
		added               api.Component // its Status in the page's own word
		status              string
		// unplaced is the added component's name when it is in no place.
		unplaced string
		// want is each surface's status with the component added.
		want map[catalog.SurfaceID]api.Status
	}{
		{
			// The capture's own incident is "Elevated errors for Workspace
			// Agent", a product the page lists no component for.
			name: "openai: a new component in full outage, every surface operational", slug: "openai",
			capture: "incidentio-openai-20260722.json", status: "full_outage",
			added:    api.Component{ID: "01TESTWORKSPACEAGENT000000", Name: "Workspace Agent"},
			unplaced: "Workspace Agent",
			want:     map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Operational, "agent": api.Operational},
		},
		{
			// The console is operational on the real page; the API, the app
			// and the agent are in its major outage.
			name: "anthropic: a new component in major outage leaves the console operational", slug: "anthropic",
			capture: "statuspage-anthropic-20260729.json", status: "major_outage",
			added:    api.Component{ID: "test0chrome0", Name: "Claude in Chrome"},
			unplaced: "Claude in Chrome",
			want: map[catalog.SurfaceID]api.Status{"api": api.MajorOutage, "app": api.MajorOutage, "agent": api.MajorOutage,
				"console": api.Operational},
		},
		{
			// Excluded from the API's scope by the word "Dashboard", and
			// not the console's, which takes the Playground by id.
			name: "cohere: a new component the API's exclusions leave out", slug: "cohere",
			capture: "incidentio-cohere-20260723.json", status: "full_outage",
			added:    api.Component{ID: "01TESTDASHBOARD00000000000", Name: "Dashboard"},
			unplaced: "Dashboard",
			want:     map[catalog.SurfaceID]api.Status{"api": api.Operational, "app": api.Operational, "console": api.PartialOutage},
		},
		{
			// One of 23 in-scope components in outage: degraded (the
			// rollup of a page of many components).
			name: "cohere: a new component on a whole-page scope counts for the API", slug: "cohere",
			capture: "incidentio-cohere-20260723.json", status: "full_outage",
			added: api.Component{ID: "01TESTRERANKV5000000000000", Name: "rerank-v5.0"},
			want:  map[catalog.SurfaceID]api.Status{"api": api.Degraded, "app": api.Operational, "console": api.PartialOutage},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", tt.capture))
			if err != nil {
				t.Fatal(err)
			}
			b := newPageBuilds(t, tt.slug, real)
			b.cycle()
			b.Serve(withComponent(t, real, tt.added, tt.status))
			firstSeen := b.clock.Now()
			b.cycle()
			b.cycle()

			feedSrc := b.sources(tt.slug).Feed
			var names []string
			for _, u := range feedSrc.Unplaced {
				names = append(names, u.Name)
				if u.ID != tt.added.ID || !u.FirstSeen.Equal(firstSeen) {
					t.Errorf("unplaced %+v, want id %s first seen %s (the first build that saw it)", u, tt.added.ID, firstSeen)
				}
			}
			var want []string
			if tt.unplaced != "" {
				want = []string{tt.unplaced}
			}
			if !slices.Equal(names, want) {
				t.Errorf("sources.json %s feed.unplaced = %q, want %q", tt.slug, names, want)
			}
			if n := b.logged(unplacedLogged); n != len(want) {
				t.Errorf("logged %d times over two builds, want %d:\n%s", n, len(want), b.logs())
			}
			roster := tt.added.Name + " (" + tt.added.ID + ")"
			if counts := slices.Contains(feedSrc.RosterAdded, roster); counts != (tt.unplaced == "") {
				t.Errorf("rosterAdded = %q: %q counts for the API %v, want %v", feedSrc.RosterAdded, roster, counts, tt.unplaced == "")
			}
			got := map[catalog.SurfaceID]api.Status{}
			for _, sf := range b.service(tt.slug).Surfaces {
				got[sf.ID] = sf.Status
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("surfaces %v, want %v", got, tt.want)
			}

			// The page no longer lists it: dropped.
			b.Serve(real)
			b.cycle()
			if u := b.sources(tt.slug).Feed.Unplaced; len(u) != 0 {
				t.Errorf("unplaced %+v after the page dropped the component, want none", u)
			}
		})
	}
}

// TestUnplacedTagsThroughBuilds serves xAI's real feed of 2026-10-07
// through full builds with xAI's catalog entry: every tag of its items is
// placed (Voice, xAI's voice API, in the API's scope) and none is
// unplaced. With the entry as it was before Voice was placed, the [Voice]
// tag is in no place: sources.json lists it under xAI's feed as unplaced,
// kind tag, without an id, with the firstSeen of its first build, kept
// over the next, logged once; it is dropped once the catalog places it.
func TestUnplacedTagsThroughBuilds(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile(filepath.Join("feed", "testdata", "real", "rss-xai-20261007.xml"))
	if err != nil {
		t.Fatal(err)
	}
	const tagLogged = "a tag of the official feed's items is in no place"

	placed := newPageBuilds(t, "xai", real)
	placed.cycle()
	if u := placed.sources("xai").Feed.Unplaced; len(u) != 0 {
		t.Errorf("unplaced %+v with the catalog's entry, want none", u)
	}
	if n := placed.logged(tagLogged); n != 0 {
		t.Errorf("logged %d times, want none:\n%s", n, placed.logs())
	}

	b := newPageBuilds(t, "xai", real)
	withVoice := b.Catalog.Services[0]
	before := withVoice
	before.Feed.Scope.IncidentKeywords = slices.DeleteFunc(slices.Clone(withVoice.Feed.Scope.IncidentKeywords),
		func(k string) bool { return k == "[Voice]" })
	if len(before.Feed.Scope.IncidentKeywords) == len(withVoice.Feed.Scope.IncidentKeywords) {
		t.Fatal("the catalog's xAI scope does not place [Voice]")
	}
	b.Catalog.Services[0] = before
	firstSeen := b.clock.Now()
	b.cycle()
	b.cycle()
	want := []api.UnplacedComponent{{Name: "Voice", Kind: api.UnplacedTag, FirstSeen: firstSeen}}
	if got := b.sources("xai").Feed.Unplaced; !slices.Equal(got, want) {
		t.Errorf("sources.json xai feed.unplaced = %+v, want %+v", got, want)
	}
	if n := b.logged(tagLogged); n != 1 {
		t.Errorf("logged %d times over two builds, want once:\n%s", n, b.logs())
	}
	b.Catalog.Services[0] = withVoice
	b.cycle()
	if u := b.sources("xai").Feed.Unplaced; len(u) != 0 {
		t.Errorf("unplaced %+v once the catalog places Voice, want none", u)
	}
}

// withComponent returns the page with one more component: a copy of its
// first, with c's id and name and the status given in the page's words.
func withComponent(t *testing.T, page []byte, c api.Component, status string) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(page, &doc); err != nil {
		t.Fatal(err)
	}
	comps, _ := doc["components"].([]any)
	if len(comps) == 0 {
		t.Fatal("the page lists no components")
	}
	first, _ := comps[0].(map[string]any)
	added := make(map[string]any, len(first))
	for k, v := range first {
		added[k] = v
	}
	added["id"], added["name"], added["status"] = c.ID, c.Name, status
	doc["components"] = append(comps, added)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pageBuilds runs full builds of a catalog of one service, with its own
// catalog entry (scope, surfaces, otherComponents), against a fake of its
// page (buildtest.OnePage: Serve changes what it serves).
type pageBuilds struct {
	*buildtest.OnePage
	t     *testing.T
	clock *buildtest.Clock
	out   string
	log   syncLog
	// notifier, when set, is given every change of the builds.
	notifier *notify.Notifier
}

func newPageBuilds(t *testing.T, slug string, page []byte) *pageBuilds {
	t.Helper()
	return &pageBuilds{OnePage: buildtest.NewOnePage(t, slug, page), t: t, clock: buildtest.NewClock(t0), out: filepath.Join(t.TempDir(), "public")}
}

// cycle runs one build and advances the clock by five minutes.
func (b *pageBuilds) cycle() {
	b.t.Helper()
	_, err := Build(context.Background(), Options{
		Out:      b.out,
		Site:     Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "aistatus test"},
		Catalog:  b.Catalog,
		Timeout:  5 * time.Second,
		Client:   outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(b.Catalog)}),
		Now:      b.clock.Now,
		Log:      zerolog.New(&b.log),
		Adapters: feed.Adapters(),
		Notifier: b.notifier,
	})
	if err != nil {
		b.t.Fatalf("build at %s: %v", b.clock.Now(), err)
	}
	b.clock.Advance(5 * time.Minute)
}

func (b *pageBuilds) sources(slug string) api.ServiceSources {
	b.t.Helper()
	var doc api.SourcesDoc
	b.read(snapshot.FileSources, &doc)
	for _, s := range doc.Services {
		if s.Slug == slug {
			return s
		}
	}
	b.t.Fatalf("%s not in %s", slug, snapshot.FileSources)
	return api.ServiceSources{}
}

func (b *pageBuilds) service(slug string) api.ServiceDoc {
	b.t.Helper()
	var doc api.ServiceDoc
	b.read(snapshot.ServiceFile(slug), &doc)
	return doc
}

func (b *pageBuilds) read(name string, v any) {
	b.t.Helper()
	readSnapshotFile(b.t, b.out, name, v)
}

func (b *pageBuilds) logs() string { return b.log.String() }

// logged counts the log lines whose message starts with msg.
func (b *pageBuilds) logged(msg string) int {
	n := 0
	for line := range strings.Lines(b.logs()) {
		var entry struct {
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(line), &entry) == nil && strings.HasPrefix(entry.Message, msg) {
			n++
		}
	}
	return n
}

// TestTrackUnplaced: the list of a page's components in no place, cycle by
// cycle. A component keeps its firstSeen while it stays unplaced; it is
// dropped when the page no longer lists it or when the catalog places it
// (in otherComponents here); the list stands while the page cannot be read
// or a surface's read failed (its components are unknown, not absent); a
// service whose catalog places no components has none.
func TestTrackUnplaced(t *testing.T) {
	t.Parallel()
	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	anthropic, _ := def.Lookup("anthropic")
	placed := anthropic
	placed.OtherComponents = append(slices.Clone(anthropic.OtherComponents), catalog.OtherComponent{Name: "Claude in Chrome", Why: "a test"})
	replicate, _ := def.Lookup("replicate") // no surfaces, no otherComponents

	apiComp := api.Component{ID: "k8w3r06qmzrp", Name: "Claude API (api.anthropic.com)", Status: api.Operational, InScope: true}
	app := api.Component{ID: "rwppv331jlwc", Name: "claude.ai", Status: api.Operational}
	gov := api.Component{ID: "0scnb50nvy53", Name: "Claude for Government", Status: api.Operational}
	chrome := api.Component{ID: "test0chrome0", Name: "Claude in Chrome", Status: api.MajorOutage}
	read := func(comps ...api.Component) Observation {
		appIn := app
		appIn.InScope = true
		return Observation{Feed: api.FeedSource{State: api.FeedOK}, Components: comps,
			Surfaces: []feed.SurfaceResult{{ID: catalog.SurfaceApp, Components: []api.Component{appIn}}}}
	}
	surfaceFailed := read(apiComp, app, gov, chrome)
	surfaceFailed.Surfaces[0] = feed.SurfaceResult{ID: catalog.SurfaceApp, Err: &feed.Error{Kind: api.FailureTimeout, Err: errTest("timeout")}}
	scopeEmpty := read(apiComp, app, gov, chrome)
	scopeEmpty.Surfaces[0] = feed.SurfaceResult{ID: catalog.SurfaceApp, Err: &feed.Error{Kind: api.FailureScope, Err: errTest("nothing")}}

	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		name string
		svc  catalog.Service
		o    Observation
		want []string // "name@minute first seen"
		logs int
	}{
		{"every component placed", anthropic, read(apiComp, app, gov), nil, 0},
		{"a new component", anthropic, read(apiComp, app, gov, chrome), []string{"Claude in Chrome@1"}, 1},
		{"still there: the same firstSeen, not logged again", anthropic, read(apiComp, app, gov, chrome), []string{"Claude in Chrome@1"}, 0},
		{"the page fails: the list stands", anthropic, Observation{Feed: api.FeedSource{State: api.FeedError}}, []string{"Claude in Chrome@1"}, 0},
		{"a surface's read fails: the list stands", anthropic, surfaceFailed, []string{"Claude in Chrome@1"}, 0},
		{"claude.ai no longer in the app's scope: unplaced too", anthropic, scopeEmpty, []string{"claude.ai@5", "Claude in Chrome@1"}, 1},
		{"the catalog places it: dropped", placed, read(apiComp, app, gov, chrome), nil, 0},
		{"back in no place: new again", anthropic, read(apiComp, app, gov, chrome), []string{"Claude in Chrome@7"}, 1},
		{"the page drops it: dropped", anthropic, read(apiComp, app, gov), nil, 0},
		{"a service that places nothing has none", replicate, read(apiComp, app, gov, chrome), nil, 0},
	}
	var fh history.FeedHealth
	for i, step := range steps {
		var log syncLog
		now := start.Add(time.Duration(i) * time.Minute)
		trackUnplaced(&fh, step.svc, step.o, now, zerolog.New(&log))
		var got []string
		for _, u := range fh.Unplaced {
			got = append(got, fmt.Sprintf("%s@%d", u.Name, u.FirstSeen.Sub(start)/time.Minute))
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("%d %s: unplaced %q, want %q", i, step.name, got, step.want)
		}
		if n := strings.Count(log.String(), unplacedLogged); n != step.logs {
			t.Errorf("%d %s: logged %d times, want %d:\n%s", i, step.name, n, step.logs, log.String())
		}
	}
}
