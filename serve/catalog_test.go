package serve

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
