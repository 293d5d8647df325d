package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// anthropicAppDown is a Statuspage summary.json in which claude.ai, Claude
// Cowork (the app's too) and Claude Code are in major_outage, Claude API
// operational, and the incident "claude.ai and Claude Code unavailable" is
// open, linked to those three. It
// is derived from a summary status.claude.com really served (the capture
// and its provenance are in build/feed/testdata/real), changing only the
// members named: the components' statuses and the incident's name,
// components and times.
func anthropicAppDown(t *testing.T, now time.Time) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "build", "feed", "testdata", "real", "statuspage-anthropic-20260729.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	down := map[string]string{"claude.ai": "major_outage", "Claude Cowork": "major_outage", "Claude Code": "major_outage"}
	var linked []any
	for _, c := range doc["components"].([]any) {
		c := c.(map[string]any)
		name := c["name"].(string)
		c["status"] = "operational"
		if st, ok := down[name]; ok {
			c["status"] = st
			linked = append(linked, c)
		}
	}
	inc := doc["incidents"].([]any)[0].(map[string]any)
	at := now.Add(-10 * time.Minute).UTC().Format(time.RFC3339)
	inc["name"] = "claude.ai and Claude Code unavailable"
	inc["components"] = linked
	inc["incident_updates"] = []any{}
	inc["created_at"], inc["started_at"], inc["updated_at"] = at, at, at
	doc["incidents"] = []any{inc}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSurfacesEndToEnd is issue 21's repro, end to end: a loopback
// Statuspage where claude.ai and Claude Code are down and the API is up, a
// build with the real catalog entry of Anthropic (its real scopes), then
// the check, by the CLI and over HTTP. claude.ai answers down for the app
// surface (exit 2), "claude code" for the agent surface, and "claude" says
// the API is up and that claude.ai is down.
func TestSurfacesEndToEnd(t *testing.T) {
	t.Parallel()
	now := time.Now()
	summary := anthropicAppDown(t, now)
	var sum struct {
		Incidents json.RawMessage `json:"incidents"`
	}
	if err := json.Unmarshal(summary, &sum); err != nil {
		t.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v2/summary.json":
			w.Write(summary)
		case "/api/v2/incidents.json":
			w.Write([]byte(`{"page":{"id":"tymt9n04zgry"},"incidents":` + string(sum.Incidents) + `}`))
		case "/v1/models":
			w.WriteHeader(http.StatusUnauthorized) // the API host answers, without a key
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(page.Close)

	def, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := def.Lookup("anthropic")
	svc.Alternatives = nil // the other services are not in this catalog
	svc.Feed.URL = page.URL + "/api/v2/summary.json"
	svc.Feed.IncidentsURL = page.URL + "/api/v2/incidents.json"
	svc.ProbeURL = page.URL + "/v1/models"
	// claude.ai's own host, and the console's: a 404 is an answer.
	svc.Surfaces = slices.Clone(svc.Surfaces)
	for i, sf := range svc.Surfaces {
		if sf.ProbeURL != "" {
			svc.Surfaces[i].ProbeURL = page.URL + "/" + string(sf.ID)
		}
	}
	catalogPath := writeCatalog(t, catalog.Catalog{Services: []catalog.Service{svc}, ErrorCodes: def.ErrorCodes})
	dir := filepath.Join(t.TempDir(), "public")
	addr := freeAddr(t)
	// Two cycles, so that each surface has status time for its uptime.
	for range 2 {
		if code, out := aistatus(context.Background(), "build", "--out", dir, "--catalog", catalogPath, "--base-url", "http://"+addr, "--timeout", "5s"); code != 0 {
			t.Fatalf("build exited %d: %s", code, out)
		}
	}

	type answer struct {
		level, surface string
		others         []string // id:status of otherSurfaces
		code           int
	}
	want := map[string]answer{
		"claude.ai":   {"down", "app", []string{"agent:major_outage"}, 2},
		"claude code": {"down", "agent", []string{"app:major_outage"}, 2},
		"claude":      {"up", "api", []string{"app:major_outage", "agent:major_outage"}, 0},
	}
	read := func(t *testing.T, doc api.CheckDoc) answer {
		t.Helper()
		if doc.Surface == nil {
			t.Fatalf("no surface: %+v", doc)
		}
		a := answer{level: doc.Verdict.Level, surface: string(doc.Surface.ID)}
		for _, o := range doc.OtherSurfaces {
			a.others = append(a.others, string(o.ID)+":"+string(o.Status))
		}
		return a
	}
	for q, w := range want {
		t.Run("cli "+q, func(t *testing.T) {
			code, out := aistatus(context.Background(), "check", q, "--dir", dir, "--catalog", catalogPath, "--json")
			var doc api.CheckDoc
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got := read(t, doc)
			got.code = code
			if got.level != w.level || got.surface != w.surface || got.code != w.code || !slices.Equal(got.others, w.others) {
				t.Errorf("check %q: %+v, want %+v\n%s", q, got, w, out)
			}
		})
	}
	// The text answer names the surface and what else is down.
	code, out := aistatus(context.Background(), "check", "claude", "--dir", dir, "--catalog", catalogPath)
	if code != 0 || !strings.Contains(out, "Anthropic API is up") || !strings.Contains(out, "Also: claude.ai (app) is major outage") {
		t.Errorf("check claude: exit %d\n%s", code, out)
	}
	code, out = aistatus(context.Background(), "check", "claude.ai", "--dir", dir, "--catalog", catalogPath)
	if code != 2 || !strings.Contains(out, "claude.ai is down (major outage)") || !strings.Contains(out, "claude.ai's host answered in") {
		t.Errorf("check claude.ai: exit %d\n%s", code, out)
	}

	startCommand(t, "serve", "--dir", dir, "--addr", addr, "--catalog", catalogPath, "--rate-limit", "0")
	apiURL := "http://" + addr + "/api/v1"
	waitFor(t, apiURL+"/status")
	for q, w := range want {
		var doc api.CheckDoc
		get(t, apiURL+"/check?q="+strings.ReplaceAll(q, " ", "+")).decode(t, &doc)
		w.code = 0
		if got := read(t, doc); got.level != w.level || got.surface != w.surface || !slices.Equal(got.others, w.others) {
			t.Errorf("GET /check?q=%s: %+v, want %+v", q, got, w)
		}
	}

	// The service document: each surface with its status, components and
	// incidents; the incident belongs to the app and the agent, not the API.
	var detail api.ServiceDoc
	get(t, apiURL+"/services/anthropic").decode(t, &detail)
	type surface struct {
		status     api.Status
		basis      api.Basis
		components []string
		incidents  []string
		uptime     string // 24 h, from the two cycles
	}
	got := map[catalog.SurfaceID]surface{}
	var ids []catalog.SurfaceID
	for _, sf := range detail.Surfaces {
		ids = append(ids, sf.ID)
		s := surface{status: sf.Status, basis: sf.Basis, uptime: history.FormatPercent(sf.Uptime.H24)}
		for _, c := range sf.Components {
			s.components = append(s.components, c.Name)
		}
		for _, inc := range sf.Incidents {
			s.incidents = append(s.incidents, inc.Headline)
		}
		got[sf.ID] = s
	}
	if !slices.Equal(ids, []catalog.SurfaceID{"api", "app", "agent", "console"}) {
		t.Fatalf("surfaces %v", ids)
	}
	const headline = "claude.ai and Claude Code unavailable"
	for id, w := range map[catalog.SurfaceID]surface{
		"api":     {api.Operational, api.BasisOfficial, []string{"Claude API (api.anthropic.com)"}, nil, "100%"},
		"app":     {api.MajorOutage, api.BasisOfficial, []string{"claude.ai", "Claude Cowork"}, []string{headline}, "0%"},
		"agent":   {api.MajorOutage, api.BasisOfficial, []string{"Claude Code"}, []string{headline}, "0%"},
		"console": {api.Operational, api.BasisOfficial, []string{"Claude Console (platform.claude.com)"}, nil, "100%"},
	} {
		g := got[id]
		if g.status != w.status || g.basis != w.basis || !slices.Equal(g.components, w.components) || !slices.Equal(g.incidents, w.incidents) || g.uptime != w.uptime {
			t.Errorf("surface %s: %+v, want %+v", id, g, w)
		}
	}
	if detail.Status != api.Operational || len(detail.Incidents) != 0 {
		t.Errorf("the service's own status and incidents are the API's: %s, %d incidents", detail.Status, len(detail.Incidents))
	}
}
