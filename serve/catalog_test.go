package serve

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// TestCheckAnswersFromTheSnapshotsCatalog: /check matches and probes by the
// catalog the snapshot was built with, not the one the server was started
// with (a replica started without --catalog used to probe the built-in
// hosts, silently); a host on an internal address that only the snapshot's
// catalog names is still refused by the server's dial guard; a catalog
// that does not parse leaves the server's own, logged once.
func TestCheckAnswersFromTheSnapshotsCatalog(t *testing.T) {
	t.Parallel()
	const extra = "mistral" // in the snapshot's catalog, not the server's
	for _, tc := range []struct {
		name string
		// elsewhere points the extra service's probe at a loopback host the
		// server's catalog does not name.
		elsewhere bool
		// catalogFile replaces the snapshot's catalog.json when set.
		catalogFile string
		tracked     bool
		probed      bool
		logged      int
	}{
		{name: "a service only the snapshot's catalog has", tracked: true, probed: true},
		{name: "an internal host only the snapshot's catalog names", elsewhere: true, tracked: true},
		{name: "a catalog that does not parse", catalogFile: `{"services": "not a list"}`, logged: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api, inside := newFakeAPI(t), newFakeAPI(t)
			snapCat, err := catalog.Default()
			if err != nil {
				t.Fatal(err)
			}
			for i, svc := range snapCat.Services {
				if svc.ProbeURL != "" {
					snapCat.Services[i].ProbeURL = api.URL + "/" + svc.Slug
					if tc.elsewhere && svc.Slug == extra {
						snapCat.Services[i].ProbeURL = inside.URL + "/" + svc.Slug
					}
				}
			}
			ownCat := snapCat
			ownCat.Services = slices.DeleteFunc(slices.Clone(snapCat.Services), func(svc catalog.Service) bool { return svc.Slug == extra })

			files, err := testSnapshotFiles(snapCat, genTime)
			if err != nil {
				t.Fatal(err)
			}
			if tc.catalogFile != "" {
				if files, err = withFile(files, snapshot.FileCatalog, []byte(tc.catalogFile)); err != nil {
					t.Fatal(err)
				}
			}
			dir := filepath.Join(t.TempDir(), "public")
			if err := snapshot.Publish(dir, files); err != nil {
				t.Fatal(err)
			}
			var log syncBuffer
			clock := newTestClock(genTime.Add(60e9))
			// The client `aistatus serve` makes: only its own catalog's
			// hosts may be on an internal address.
			client := outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(ownCat)})
			srv := New(Options{Dir: dir, Catalog: ownCat, Log: zerolog.New(&log), Now: clock.Now, Client: client})
			if ok, err := srv.Store().Reload(); !ok || err != nil {
				t.Fatalf("reload: %v %v", ok, err)
			}
			ts := &testServer{Server: srv, dir: dir, clock: clock, api: api, cat: snapCat}

			for range 2 {
				doc := checkDoc(t, ts, extra)
				if doc.Tracked != tc.tracked {
					t.Fatalf("%s tracked: %v, want %v (%s)", extra, doc.Tracked, tc.tracked, doc.Verdict.Reason)
				}
				if probed := doc.LatencyMs != nil; probed != tc.probed {
					t.Errorf("%s probed: %v, want %v", extra, probed, tc.probed)
				}
			}
			if inside.hits.Load() != 0 {
				t.Errorf("the server dialled an internal host only the snapshot's catalog names (%d requests)", inside.hits.Load())
			}
			if doc := checkDoc(t, ts, "openai"); !doc.Tracked || doc.LatencyMs == nil {
				t.Errorf("openai, in both catalogs: tracked %v, latency %v", doc.Tracked, doc.LatencyMs)
			}
			if n := strings.Count(log.String(), "catalog does not parse"); n != tc.logged {
				t.Errorf("%d log lines about the catalog, want %d:\n%s", n, tc.logged, log.String())
			}
		})
	}
}

// TestReplicaDistrustsTheOriginsCatalog: a replica answers /check by the
// catalog its origin publishes, and that origin may be hostile. Its text
// reaches answers cleaned as a status page's is (a raw ESC in a name once
// reached `aistatus check --api`'s terminal); an alias that names another
// service of the replica's own catalog is dropped and logged ("claude"
// once answered for OpenAI); and a failed probe's evidence quotes the
// probe URL without its query, userinfo or fragment.
func TestReplicaDistrustsTheOriginsCatalog(t *testing.T) {
	t.Parallel()
	site := filepath.Join(t.TempDir(), "site")
	origin := httptest.NewServer(http.HandlerFunc(siteHandler(site)))
	t.Cleanup(origin.Close)
	fake := newFakeAPI(t)
	closed := closedURL(t)
	own, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	probeAt(&own, fake.URL)
	openai := slices.IndexFunc(own.Services, func(svc catalog.Service) bool { return svc.Slug == "openai" })
	anthropic := slices.IndexFunc(own.Services, func(svc catalog.Service) bool { return svc.Slug == "anthropic" })
	own.Services[openai].ProbeURL = closed + "/openai"

	// The origin's catalog: openai, first, re-points Anthropic's names
	// and carries control and bidi characters in its text.
	var hostile catalog.Catalog
	if err := json.Unmarshal(own.JSON(), &hostile); err != nil {
		t.Fatal(err)
	}
	svc := &hostile.Services[openai]
	svc.Name = "Open\x1b]0;pwned\x07AI\u202e"
	svc.Aliases = append(svc.Aliases, "claude", "Claude!", "api.anthropic.com", "gpt-next")
	svc.Alternatives[0].Why = "cheaper\x1b[2J now"
	svc.ProbeURL = strings.Replace(closed, "http://", "http://user:s3cret@", 1) + "/openai?token=s3cret&say=ignore+previous#s3cret"
	app := slices.IndexFunc(svc.Surfaces, func(sf catalog.Surface) bool { return sf.ID == catalog.SurfaceApp })
	svc.Surfaces[app].Aliases = append(svc.Surfaces[app].Aliases, "claude app")
	theirApp := &hostile.Services[anthropic].Surfaces[slices.IndexFunc(hostile.Services[anthropic].Surfaces,
		func(sf catalog.Surface) bool { return sf.ID == catalog.SurfaceApp })]
	theirApp.Aliases = slices.DeleteFunc(theirApp.Aliases, func(a string) bool { return a == "claude app" })
	// The first pinned model takes the name of another, which it would
	// then answer for.
	first := &hostile.Models.Pinned[0]
	other := hostile.Models.Pinned[slices.IndexFunc(hostile.Models.Pinned, func(md catalog.Model) bool { return md.ID != first.ID && len(md.Aliases) > 0 })]
	first.Aliases = append(first.Aliases, other.Aliases[len(other.Aliases)-1])
	if _, err := catalog.Parse(hostile.JSON()); err != nil {
		t.Fatalf("the hostile catalog must pass catalog.Parse, as an origin's would: %v", err)
	}

	files, err := testSnapshotFiles(own, genTime)
	if err != nil {
		t.Fatal(err)
	}
	if files, err = withFile(files, snapshot.FileCatalog, hostile.JSON()); err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Publish(site, files); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	clock := newTestClock(genTime.Add(time.Minute))
	o := newTestOrigin(t, origin.URL, clock, time.Hour)
	client := outbound.NewClient(outbound.Options{AllowedURLs: outbound.CatalogURLs(own)})
	srv := New(Options{Catalog: own, Log: zerolog.New(&log), Now: clock.Now, Origin: o, Client: client})
	if swapped, err := o.Sync(context.Background(), srv.Store()); !swapped || err != nil {
		t.Fatalf("sync: %v %v", swapped, err)
	}
	ts := &testServer{Server: srv, clock: clock, api: fake, cat: own}

	for _, tc := range []struct {
		q, notSlug, slug string
	}{
		{q: "claude", notSlug: "openai", slug: "anthropic"},
		{q: "Claude!", notSlug: "openai", slug: "anthropic"},
		{q: "api.anthropic.com", notSlug: "openai", slug: "anthropic"},
		{q: "claude app", notSlug: "openai"},
		{q: "gpt-next", slug: "openai"}, // an alias of no other service stays
	} {
		doc := checkDoc(t, ts, tc.q)
		got := ""
		if doc.Service != nil {
			got = doc.Service.Slug
		}
		if got == tc.notSlug || (tc.slug != "" && got != tc.slug) {
			t.Errorf("check %q answered for %q, want %q (never %q)", tc.q, got, tc.slug, tc.notSlug)
		}
	}
	if n := strings.Count(log.String(), "alias dropped"); n != 5 {
		t.Errorf("%d aliases dropped in the log, want 5 (four of services, one of a model):\n%s", n, log.String())
	}
	if doc := checkDoc(t, ts, other.Aliases[len(other.Aliases)-1]); doc.Model == nil || doc.Model.ID != other.ID {
		t.Errorf("check %q answered for model %+v, want %s", other.Aliases[len(other.Aliases)-1], doc.Model, other.ID)
	}

	raw := string(body(t, ts.do(t, http.MethodGet, "/api/v1/check?q=openai", nil)))
	var doc api.CheckDoc
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Service == nil || doc.Service.Name != "Open ]0;pwned AI" {
		t.Errorf("service = %+v, want the name cleaned to %q", doc.Service, "Open ]0;pwned AI")
	}
	for _, bad := range []string{`\u001b`, `\u0007`, `\u202e`, "\u202e", "s3cret", "ignore"} {
		if strings.Contains(raw, bad) {
			t.Errorf("/check?q=openai carries %q:\n%s", bad, raw)
		}
	}
	probed := false
	for _, ev := range doc.Verdict.Evidence {
		if ev.Source == api.EvidenceProbe && strings.Contains(ev.Says, `"`+closed+`/openai"`) {
			probed = true
		}
	}
	if !probed {
		t.Errorf("no probe evidence quoting %s/openai, bare: %+v", closed, doc.Verdict.Evidence)
	}
}

// closedURL is the address of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}
