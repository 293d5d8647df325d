package site

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// TestStatuspageMapping: every status has a v2 value, and "unknown" is never
// "operational" nor "none": v2 has no unknown, and saying all is well when
// we cannot tell is the one wrong answer.
func TestStatuspageMapping(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status               api.Status
		indicator, component string
	}{
		{api.Operational, "none", "operational"},
		{api.Degraded, "minor", "degraded_performance"},
		{api.PartialOutage, "major", "partial_outage"},
		{api.MajorOutage, "critical", "major_outage"},
		{api.Maintenance, "maintenance", "under_maintenance"},
		{api.Unknown, "minor", "degraded_performance"},
	} {
		indicator, description := spIndicator(tc.status)
		if indicator != tc.indicator || spComponentStatus(tc.status) != tc.component {
			t.Errorf("%s: indicator %s, component %s; want %s, %s", tc.status, indicator, spComponentStatus(tc.status), tc.indicator, tc.component)
		}
		if tc.status == api.Unknown && !strings.Contains(description, "Unknown") {
			t.Errorf("unknown's description %q does not say so", description)
		}
	}
	if len(api.Statuses) != 6 {
		t.Errorf("%d statuses: map the new one here and in spIndicator", len(api.Statuses))
	}
	ended := fixtureNow
	for _, tc := range []struct {
		inc  api.Incident
		want string
	}{
		{api.Incident{Status: "identified"}, "identified"},
		{api.Incident{Status: "monitoring"}, "monitoring"},
		{api.Incident{Status: "ongoing"}, "investigating"}, // our probe incidents
		{api.Incident{Status: "Degraded"}, "investigating"},
		{api.Incident{Status: "monitoring", EndedAt: &ended}, "resolved"},
		{api.Incident{Status: "postmortem", EndedAt: &ended}, "postmortem"},
	} {
		if got := spIncidentStatus(tc.inc); got != tc.want {
			t.Errorf("%q (ended %v): %s, want %s", tc.inc.Status, tc.inc.EndedAt != nil, got, tc.want)
		}
	}
}

// keysOf returns the member names of a JSON object.
func keysOf(t *testing.T, v any) []string {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%T is not an object", v)
	}
	return slices.Sorted(maps.Keys(m))
}

// TestStatuspageFieldsMatchRealPages: every field that real Statuspage v2
// summaries have (the captures in build/feed/testdata/real) is in the
// façade's page, status, components, incidents and their updates.
func TestStatuspageFieldsMatchRealPages(t *testing.T) {
	t.Parallel()
	_, files := render(t)
	var facade map[string]any
	if err := json.Unmarshal(files[StatuspageDir("anthropic")+"/summary.json"], &facade); err != nil {
		t.Fatal(err)
	}
	parts := func(doc map[string]any) map[string]any {
		inc := doc["incidents"].([]any)[0].(map[string]any)
		return map[string]any{
			"page": doc["page"], "status": doc["status"], "component": doc["components"].([]any)[0],
			"incident": inc, "incident update": inc["incident_updates"].([]any)[0],
		}
	}
	got := parts(facade)
	for _, capture := range []string{"statuspage-anthropic-20260729.json", "statuspage-github-20260724.json"} {
		data, err := os.ReadFile(filepath.Join("..", "feed", "testdata", "real", capture))
		if err != nil {
			t.Fatal(err)
		}
		var real map[string]any
		if err := json.Unmarshal(data, &real); err != nil {
			t.Fatal(err)
		}
		for part, v := range parts(real) {
			have := keysOf(t, got[part])
			for _, k := range keysOf(t, v) {
				// reminder_intervals is a setting of the page's owner, not state.
				if !slices.Contains(have, k) && k != "reminder_intervals" {
					t.Errorf("%s: the façade's %s has no %q", capture, part, k)
				}
			}
		}
	}
}

// TestStatuspageClient: a real third-party Statuspage client (the
// statuspage.io npm package) reads the façade of every service, over HTTP,
// and understands each as the snapshot says.
func TestStatuspageClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node: the Statuspage client test needs Node.js and npm (.ci/run installs the client)")
	}
	modules := os.Getenv("AISTATUS_STATUSPAGE_NODE_MODULES")
	if modules == "" {
		cache, _ := os.UserCacheDir()
		modules = filepath.Join(cache, "aistatus-ci", "statuspage", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(modules, "statuspage.io", "package.json")); err != nil {
		t.Skipf("no statuspage.io client in %s: .ci/run installs it (.ci/statuspage), or set AISTATUS_STATUSPAGE_NODE_MODULES", modules)
	}
	docs, files := render(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", snapshot.ContentTypeOf(r.URL.Path))
		_, _ = w.Write(data)
	}))
	defer srv.Close()

	args := []string{"testdata/validate/statuspage-client.js", srv.URL}
	var want []string
	for _, svc := range docs.Services {
		args = append(args, svc.Slug)
		indicator, _ := spIndicator(svc.Status)
		statuses := []string{spComponentStatus(svc.Status)}
		for _, c := range svc.Components {
			if c.InScope {
				statuses = append(statuses, spComponentStatus(c.Status))
			}
		}
		open, maintenance := 0, 0
		for _, inc := range svc.Incidents {
			if inc.Open() {
				open++
			}
		}
		if svc.Status == api.Maintenance {
			maintenance = 1
		}
		want = append(want, fmt.Sprintf("%s|%s|%s|%d|%d|%d", svc.Slug, indicator, strings.Join(statuses, ","),
			open, len(svc.Incidents), maintenance))
	}
	cmd := exec.Command(node, args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, out)
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, want) {
		t.Errorf("the client read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cat.Services) {
		t.Errorf("%d services, want the catalog's %d", len(want), len(cat.Services))
	}
}
