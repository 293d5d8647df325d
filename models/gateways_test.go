package models

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
)

// TestGateways goes over the table of gateways and the list that must
// stay literal beside it, catalog.Gateways (which catalog cannot take from
// here), in the table's order: every gateway a catalog may name has its
// row, every row is a gateway a catalog may name, and every row has a
// name, both readers and both fakes. Each reader reads its fake back, and
// fails, never reading a document, on a server error and an empty body.
// The default catalog's gateways each have their row, a list's reader
// included: a gateway the cycle could not read fails here, not silently.
func TestGateways(t *testing.T) {
	t.Parallel()
	rows := Gateways()
	var ids []string
	names := map[string]string{}
	for _, g := range rows {
		ids = append(ids, g.ID)
		if g.Name == "" {
			t.Errorf("%s: no name", g.ID)
		} else if other, dup := names[g.Name]; dup {
			t.Errorf("%s and %s are both named %q", other, g.ID, g.Name)
		}
		names[g.Name] = g.ID
		if got, ok := LookupGateway(g.ID); !ok || got.ID != g.ID {
			t.Errorf("LookupGateway(%q) = %+v, %v", g.ID, got, ok)
		}
	}
	if !slices.Equal(ids, catalog.Gateways) {
		t.Errorf("Gateways() = %v, catalog.Gateways = %v: the same gateways in the same order", ids, catalog.Gateways)
	}
	if _, ok := LookupGateway("carrier-pigeon"); ok {
		t.Error("LookupGateway found a gateway that is not in the table")
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range cat.Models.Gateways {
		row, ok := LookupGateway(g.ID)
		switch {
		case !ok:
			t.Errorf("the catalog's gateway %s has no row: it would never be read", g.ID)
		case g.ListURL != "" && row.ReadList == nil:
			t.Errorf("the catalog's gateway %s has a list but its row no reader of it", g.ID)
		}
	}
	for _, g := range rows {
		t.Run(g.ID, func(t *testing.T) {
			t.Parallel()
			if g.ReadList == nil || g.ReadEndpoints == nil || g.FakeList == nil || g.FakeEndpoints == nil || g.StatusWindow == "" {
				t.Fatalf("a reader or a fake is missing: %+v", g)
			}
			checkFakeEndpoints(t, g)
			checkFakeList(t, g)
			checkFailures(t, g)
		})
	}
}

// serveBody serves body as JSON with status code on a loopback server.
func serveBody(t *testing.T, code int, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkFakeEndpoints reads g's fake document of a model back: one endpoint
// per provider, fully up.
func checkFakeEndpoints(t *testing.T, g Gateway) {
	t.Helper()
	const id = "anthropic/claude-sonnet-4.5"
	providers := []string{"Anthropic", "Amazon Bedrock", "Google"}
	srv := serveBody(t, http.StatusOK, g.FakeEndpoints(id, providers))
	eps, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL+"/"+id, id)
	if err != nil {
		t.Fatalf("the fake document of %s: %v", id, err)
	}
	var got []string
	for _, ep := range eps {
		got = append(got, ep.Provider)
		if up := ep.Uptime[g.StatusWindow]; up == nil || *up != 100 || ep.Status != 0 {
			t.Errorf("%s reads %+v, want fully up", ep.Provider, ep)
		}
	}
	if !slices.Equal(got, providers) {
		t.Errorf("the fake document of %s names %v, want %v", id, got, providers)
	}
	if _, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL+"/other", "openai/gpt-5"); err == nil {
		t.Error("a model's document read as another model's")
	}
}

// checkFakeList reads g's fake list back: every model, with its name,
// creation time and expiration date.
func checkFakeList(t *testing.T, g Gateway) {
	t.Helper()
	created := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	want := []feed.ListedModel{
		{ID: "anthropic/claude-sonnet-4.5", Name: "Anthropic: Claude Sonnet 4.5", Created: created},
		{ID: "openai/o4-mini", Name: "OpenAI: o4 Mini", Created: created.Add(time.Hour)},
	}
	if g.ListsDates {
		want[1].Expires = "2026-12-01"
	}
	srv := serveBody(t, http.StatusOK, g.FakeList(want))
	list, err := g.ReadList(context.Background(), srv.Client(), srv.URL, feed.Validators{})
	if err != nil {
		t.Fatalf("the fake list: %v", err)
	}
	if len(list.Models) != len(want) {
		t.Fatalf("the fake list reads %d models, want %d", len(list.Models), len(want))
	}
	for i, m := range list.Models {
		if w := want[i]; m.ID != w.ID || m.Name != w.Name || !m.Created.Equal(w.Created) || m.Expires != w.Expires {
			t.Errorf("model %d reads %+v, want %+v", i, m, w)
		}
	}
}

// checkFailures serves replies no reader may take for a document: each
// fails with its kind.
func checkFailures(t *testing.T, g Gateway) {
	t.Helper()
	const id = "anthropic/claude-sonnet-4.5"
	for _, tc := range []struct {
		name string
		code int
		body []byte
		want []api.FailureKind
	}{
		{"HTTP 500", http.StatusInternalServerError, g.FakeEndpoints(id, []string{"Anthropic"}), []api.FailureKind{api.FailureHTTP}},
		{"empty body", http.StatusOK, nil, []api.FailureKind{api.FailureSchema, api.FailureEmpty}},
	} {
		srv := serveBody(t, tc.code, tc.body)
		if _, err := g.ReadEndpoints(context.Background(), srv.Client(), srv.URL, id); !slices.Contains(tc.want, feed.Kind(err)) {
			t.Errorf("endpoints, %s: %v (%q), want one of %q", tc.name, err, feed.Kind(err), tc.want)
		}
		if tc.code != http.StatusOK {
			srv = serveBody(t, tc.code, g.FakeList([]feed.ListedModel{{ID: id, Created: time.Now()}}))
		}
		if _, err := g.ReadList(context.Background(), srv.Client(), srv.URL, feed.Validators{}); !slices.Contains(tc.want, feed.Kind(err)) {
			t.Errorf("list, %s: %v (%q), want one of %q", tc.name, err, feed.Kind(err), tc.want)
		}
	}
}
