package feed

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// TestFormats goes over the table of formats and every list that must stay
// literal beside it: the catalog's vocabulary (catalog.FeedFormats, which
// snapshot cannot take from here) and the OpenAPI document's FeedFormat
// enum, both in the table's order. Every format but none has a name, an
// adapter, a fake page and fixtures; the adapter reads every state the
// format declares back from the fake page, and fails, never reading calm,
// on a server error, an empty body, a body over MaxBody and a cancelled
// read. None has no adapter and no fake page.
func TestFormats(t *testing.T) {
	t.Parallel()
	formats := Formats()
	var ids []catalog.FeedFormat
	names := map[string]catalog.FeedFormat{}
	for _, f := range formats {
		ids = append(ids, f.ID)
		if f.Name == "" {
			t.Errorf("%s: no name", f.ID)
		} else if other, dup := names[f.Name]; dup {
			t.Errorf("%s and %s are both named %q", other, f.ID, f.Name)
		}
		names[f.Name] = f.ID
		if got, ok := Lookup(f.ID); !ok || got.ID != f.ID {
			t.Errorf("Lookup(%q) = %+v, %v", f.ID, got, ok)
		}
	}
	if !slices.Equal(ids, catalog.FeedFormats) {
		t.Errorf("Formats() = %v, catalog.FeedFormats = %v: the same formats in the same order", ids, catalog.FeedFormats)
	}
	if enum := openapiFeedFormats(t); !slices.Equal(enum, ids) {
		t.Errorf("openapi.json's FeedFormat enum = %v, want %v (Formats(), in order)", enum, ids)
	}
	if _, ok := Lookup("carrier-pigeon"); ok {
		t.Error("Lookup found a format that is not in the table")
	}

	adapters := Adapters()
	for _, f := range formats {
		t.Run(string(f.ID), func(t *testing.T) {
			if f.ID == catalog.FormatNone {
				if f.Adapter != nil || adapters[f.ID] != nil || f.Fake != nil || f.Declares != nil {
					t.Errorf("none reads nothing, but has an adapter, a fake page or states")
				}
				return
			}
			if f.Adapter == nil || adapters[f.ID] == nil || f.Fake == nil {
				t.Fatalf("no adapter or no fake page")
			}
			if !hasFixtures(t, f.ID) {
				t.Errorf("no fixture in testdata/ named %s-… or %s_…, nor a capture testdata/real/%s-…", f.ID, f.ID, f.ID)
			}
			checkDeclares(t, f)
			checkFakeFailures(t, f)
			checkCancelled(t, f.Adapter, func(srv *httptest.Server) catalog.Service { return fakeService(f.ID, srv) })
		})
	}
	if len(adapters) != len(formats)-1 {
		t.Errorf("Adapters() has %d formats, want %d (all but none)", len(adapters), len(formats)-1)
	}
	delete(adapters, catalog.FormatStatuspage)
	if Adapters()[catalog.FormatStatuspage] == nil {
		t.Error("changing one returned map changed the next one")
	}
}

// fakeService is a service of format id whose main document is srv's
// /feed and whose incidents list is its /incidents.
func fakeService(id catalog.FeedFormat, srv *httptest.Server) catalog.Service {
	return catalog.Service{Slug: "svc", Name: "Svc", StatusPage: "https://status.example/svc",
		Feed: catalog.Feed{Format: id, URL: srv.URL + "/feed", IncidentsURL: srv.URL + "/incidents"}}
}

// serveFake serves f's fake page of status on a loopback server.
func serveFake(t *testing.T, f Format, status api.Status) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/feed" && r.URL.Path != "/incidents" {
			http.NotFound(w, r)
			return
		}
		body, ctype := f.Fake(FakePage{Slug: "svc", Status: status, List: r.URL.Path == "/incidents", Now: time.Now()})
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkDeclares reads every state f declares back from its fake page.
// Operational is one of them: a format that cannot say all is well would
// never let a service read operational.
func checkDeclares(t *testing.T, f Format) {
	t.Helper()
	if !slices.Contains(f.Declares, api.Operational) {
		t.Errorf("declares %v, without operational", f.Declares)
	}
	seen := map[api.Status]bool{}
	for _, st := range f.Declares {
		if !slices.Contains(api.Statuses, st) || st == api.Unknown || seen[st] {
			t.Errorf("declares %q: not a state, unknown, or twice", st)
		}
		seen[st] = true
		res, err := read(t, f.Adapter, fakeService(f.ID, serveFake(t, f, st)))
		if err != nil || res.Status != st {
			t.Errorf("the fake page of %s read back as %q, %v", st, res.Status, err)
		}
	}
}

// checkFakeFailures serves replies no adapter may read as a page: each must
// fail with its kind, and none may return a status.
func checkFakeFailures(t *testing.T, f Format) {
	t.Helper()
	calm, _ := f.Fake(FakePage{Slug: "svc", Status: api.Operational, Now: time.Now()})
	for _, tt := range []struct {
		name string
		code int
		body []byte
		want []api.FailureKind
	}{
		{"HTTP 500", http.StatusInternalServerError, calm, []api.FailureKind{api.FailureHTTP}},
		{"empty body", http.StatusOK, nil, []api.FailureKind{api.FailureSchema, api.FailureEmpty}},
		{"body over MaxBody", http.StatusOK, oversized(calm), []api.FailureKind{api.FailureTooLarge}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.code)
			w.Write(tt.body)
		}))
		res, err := read(t, f.Adapter, fakeService(f.ID, srv))
		srv.Close()
		switch {
		case err == nil:
			t.Errorf("%s: read %+v, want an error", tt.name, res)
		case !slices.Contains(tt.want, Kind(err)):
			t.Errorf("%s: kind %q (%v), want one of %q", tt.name, Kind(err), err, tt.want)
		case res.Status != "":
			t.Errorf("%s: a failed read returned %+v", tt.name, res)
		}
	}
}

// openapiFeedFormats reads the FeedFormat enum of the OpenAPI document on
// disk, which is kept by hand.
func openapiFeedFormats(t *testing.T) []catalog.FeedFormat {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	var schema struct {
		Enum []catalog.FeedFormat `json:"enum"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if err := json.Unmarshal(doc.Components.Schemas["FeedFormat"], &schema); err != nil {
		t.Fatalf("openapi.json's FeedFormat: %v", err)
	}
	return schema.Enum
}

// hasFixtures reports whether testdata holds a hand-made fixture or a real
// capture of format id, by the naming of the folders.
func hasFixtures(t *testing.T, id catalog.FeedFormat) bool {
	t.Helper()
	for _, pattern := range []string{string(id) + "-*", string(id) + "_*", filepath.Join("real", string(id)+"-*")} {
		names, err := filepath.Glob(filepath.Join("testdata", pattern))
		if err != nil {
			t.Fatal(err)
		}
		if len(names) > 0 {
			return true
		}
	}
	return false
}
