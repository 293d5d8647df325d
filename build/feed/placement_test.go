package feed

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestRealCapturesPlaceEveryComponent reads every real capture of a service
// that has surfaces, in the service's own format, through the code the
// build uses (Read for the API, ReadSurfaces for the others), and checks
// that each component the page lists is in exactly one of the API's scope,
// one surface's scope or the service's otherComponents. A component that
// the API's scope excludes by name still needs a place. Group rows are not
// components: the readers leave them out. The tags of a feed's items
// (xAI's "[Voice]") are its components and are placed the same way. A
// capture that lists neither (an Instatus summary) has nothing to place.
func TestRealCapturesPlaceEveryComponent(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "real"))
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, svc := range cat.Services {
		if len(svc.Surfaces) == 0 {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			parts := strings.Split(strings.TrimSuffix(name, filepath.Ext(name)), "-")
			if name == "README.md" || len(parts) < 3 || !slices.Contains(parts[1:len(parts)-1], svc.Slug) {
				continue
			}
			if catalog.FeedFormat(parts[0]) != svc.Feed.Format {
				// The page has moved since (Perplexity's Instatus summary,
				// before its move to incident.io): the build no longer
				// reads documents of that format for the service.
				t.Logf("%s: %s is not the %s format of %s today", name, parts[0], svc.Feed.Format, svc.Slug)
				continue
			}
			read++
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				for _, p := range placeComponents(t, svc, name, realDoc(t, name)) {
					t.Error(p)
				}
			})
		}
	}
	if read == 0 {
		t.Fatal("no capture of a service with surfaces was read")
	}
}

// TestRotatedSubsetPlacesOnce reads OpenAI's real summary as a read of its
// rotating subset that carries none of the agent's components: the capture
// without "Codex API" and "VS Code extension", nothing else changed. The
// agent's scope then places components by its names, by word; "Codex in
// ChatGPT Desktop", which the app's scope lists by id, must stay the app's
// alone and not be the coding agent's too by the word "Codex".
func TestRotatedSubsetPlacesOnce(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, ok := cat.Lookup("openai")
	if !ok {
		t.Fatal("openai is not in the catalog")
	}
	const capture = "incidentio-openai-20260722.json"
	rotated := edited(t, capture, func(doc jdoc) {
		var kept []any
		for _, c := range list(t, doc, "components") {
			if name := c["name"].(string); name != "Codex API" && name != "VS Code extension" {
				kept = append(kept, c)
			}
		}
		if len(kept) != len(list(t, doc, "components"))-2 {
			t.Fatal("the capture no longer lists Codex API and VS Code extension once each")
		}
		doc["components"] = kept
	})
	for _, p := range placeComponents(t, svc, capture+" without the agent's components", rotated) {
		t.Error(p)
	}
}

// placeComponents reads a document (named capture) as svc's page and lists
// each component placed in no surface or in more than one.
func placeComponents(t *testing.T, svc catalog.Service, capture string, body []byte) []string {
	t.Helper()
	ctype := "application/json"
	switch filepath.Ext(strings.Fields(capture)[0]) {
	case ".xml":
		ctype = "application/rss+xml"
	case ".html":
		ctype = "text/html; charset=utf-8"
	}
	var incidents string
	if svc.Feed.IncidentsURL != "" {
		u, err := url.Parse(svc.Feed.IncidentsURL)
		if err != nil {
			t.Fatal(err)
		}
		incidents = u.Path
	}
	// Every document of the feed is the capture, but for the incidents
	// list, which is empty: only the components are placed here.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if incidents != "" && r.URL.Path == incidents {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"page":{"id":"test"},"incidents":[]}`))
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	svc = catalogService(t, svc.Slug, srv)
	req := Request{Client: Memo(srv.Client()), Service: svc, Now: time.Now()}
	a := Adapters()[svc.Feed.Format]
	res, _, err := Read(context.Background(), a, req)
	if err != nil {
		t.Fatalf("%s read as %s's page: %v", capture, svc.Slug, err)
	}
	key := func(c api.Component) string { return c.ID + "\x00" + c.Name }
	places := map[string][]string{}
	tagPlaces := map[string][]string{}
	for _, c := range res.Components {
		if c.InScope {
			places[key(c)] = append(places[key(c)], string(catalog.SurfaceAPI))
		}
	}
	for _, tag := range res.Tags {
		if tag.InScope {
			tagPlaces[tag.Name] = append(tagPlaces[tag.Name], string(catalog.SurfaceAPI))
		}
	}
	for _, r := range ReadSurfaces(context.Background(), a, req) {
		if r.Err != nil && Kind(r.Err) != api.FailureScope {
			t.Fatalf("%s read as %s's %s: %v", capture, svc.Slug, r.ID, r.Err)
		}
		for _, c := range r.Components {
			places[key(c)] = append(places[key(c)], string(r.ID))
		}
		for _, tag := range r.Tags {
			tagPlaces[tag] = append(tagPlaces[tag], string(r.ID))
		}
	}
	var problems []string
	// A feed's tags are its components: each in exactly one place too.
	for _, tag := range res.Tags {
		where := tagPlaces[tag.Name]
		for _, o := range svc.OtherComponents {
			if o.Matches("", tag.Name) {
				where = append(where, "other")
			}
		}
		if len(where) != 1 {
			problems = append(problems, fmt.Sprintf("%s: %s: tag [%s] is placed in %d of api, app, agent, console and other %v, want exactly one",
				capture, svc.Slug, tag.Name, len(where), where))
		}
	}
	for _, c := range res.Components {
		where := places[key(c)]
		for _, o := range svc.OtherComponents {
			if o.Matches(c.ID, c.Name) {
				where = append(where, "other")
			}
		}
		if len(where) != 1 {
			problems = append(problems, fmt.Sprintf("%s: %s: component %q (id %s) is placed in %d of api, app, agent, console and other %v, want exactly one",
				capture, svc.Slug, c.Name, c.ID, len(where), where))
		}
	}
	return problems
}
