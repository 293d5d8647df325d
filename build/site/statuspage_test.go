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
	"github.com/aistatus/aistatus/build/buildtest"
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
	// The indicator's order: unknown, shown as degraded_performance, is
	// worse than operational and better than anything known to be wrong.
	for _, tc := range []struct{ a, b, worst api.Status }{
		{api.Operational, api.Unknown, api.Unknown},
		{api.Unknown, api.Maintenance, api.Maintenance},
		{api.Maintenance, api.Degraded, api.Degraded},
		{api.MajorOutage, api.Unknown, api.MajorOutage},
		{api.PartialOutage, api.MajorOutage, api.MajorOutage},
	} {
		if got, back := spWorst(tc.a, tc.b), spWorst(tc.b, tc.a); got != tc.worst || back != tc.worst {
			t.Errorf("the worse of %s and %s: %s (%s the other way), want %s", tc.a, tc.b, got, back, tc.worst)
		}
	}
	// The order is api's, whole: no order of the façade's own.
	for _, a := range api.Statuses {
		for _, b := range api.Statuses {
			if got := spWorst(a, b); got != api.MoreTrouble(a, b) {
				t.Errorf("spWorst(%s, %s) = %s, not api's order of trouble", a, b, got)
			}
		}
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

// statuspageClient reads the façades of slugs in files with a real
// third-party Statuspage client (the statuspage.io npm package), over
// HTTP, and returns its reading, one line per service
// (testdata/validate/statuspage-client.js says what it holds). It skips
// the test without the client.
func statuspageClient(t *testing.T, files map[string][]byte, slugs []string) []string {
	t.Helper()
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
	cmd := exec.Command(node, append([]string{"testdata/validate/statuspage-client.js", srv.URL}, slugs...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestStatuspageClient: the Statuspage client reads the façade of every
// service and understands each as the snapshot says: a group per surface,
// the API first, with its page's components; every surface's open
// incidents, each naming its surfaces; the indicator the worst surface's.
func TestStatuspageClient(t *testing.T) {
	t.Parallel()
	docs, files := render(t)
	var slugs, want []string
	for _, svc := range docs.Services {
		slugs = append(slugs, svc.Slug)
		want = append(want, wantStatuspage(svc))
	}
	if got := statuspageClient(t, files, slugs); !slices.Equal(got, want) {
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

// wantStatuspage is the client's line for a service's façade, from its
// document.
func wantStatuspage(svc api.ServiceDoc) string {
	type group struct {
		id      string
		status  api.Status
		members []string
	}
	var apiMembers []string
	for _, c := range svc.Components {
		if c.InScope {
			apiMembers = append(apiMembers, c.ID+"="+spComponentStatus(c.Status))
		}
	}
	groups := []group{{svc.Slug, svc.Status, apiMembers}}
	worst := svc.Status
	open := map[string][]string{}
	var incidents []api.Incident
	addOpen := func(inc api.Incident, groupID string) {
		if !inc.Open() {
			return
		}
		if open[inc.ID] == nil {
			incidents = append(incidents, inc)
		}
		open[inc.ID] = append(open[inc.ID], groupID)
	}
	for _, inc := range svc.Incidents {
		addOpen(inc, svc.Slug)
	}
	listed := map[string]bool{}
	for _, inc := range svc.Incidents {
		listed[inc.ID] = true
	}
	for _, sf := range svc.Surfaces {
		if sf.ID == catalog.SurfaceAPI {
			continue
		}
		id := svc.Slug + "/" + string(sf.ID)
		for _, inc := range sf.Incidents {
			listed[inc.ID] = true
		}
		if sf.Status == api.Unknown { // left out of the components
			for _, inc := range sf.Incidents {
				if inc.Open() && open[inc.ID] == nil {
					incidents = append(incidents, inc)
					open[inc.ID] = []string{}
				}
			}
			continue
		}
		g := group{id: id, status: sf.Status}
		for _, c := range sf.Components {
			g.members = append(g.members, c.ID+"="+spComponentStatus(c.Status))
		}
		groups = append(groups, g)
		worst = spWorst(worst, sf.Status)
		for _, inc := range sf.Incidents {
			addOpen(inc, id)
		}
	}
	var components []string
	for _, g := range groups {
		if len(g.members) == 0 {
			components = append(components, g.id+"="+spComponentStatus(g.status))
			continue
		}
		components = append(components, g.id+"*="+spComponentStatus(g.status))
		for _, m := range g.members {
			components = append(components, g.id+">"+m)
		}
	}
	api.SortIncidents(incidents)
	var unresolved []string
	for _, inc := range incidents {
		unresolved = append(unresolved, inc.ID+"@"+strings.Join(open[inc.ID], "+"))
	}
	maintenance := 0
	if svc.Status == api.Maintenance {
		maintenance = 1
	}
	indicator, _ := spIndicator(worst)
	return fmt.Sprintf("%s|%s|%s|%s|%d|%d", svc.Slug, indicator, strings.Join(components, ","),
		strings.Join(unresolved, " "), min(len(listed), statuspageIncidentsMax), maintenance)
}

// TestStatuspageSurfaceOutage: during a major outage of claude.ai and
// Claude Code with the Claude API up, the façade says so to a client that
// reads it instead of status.claude.com: the app and agent groups in major
// outage beside an operational API group, the outage's incident naming
// them, an indicator that is not "All Systems Operational", and the
// aistatus object naming the API and each surface.
func TestStatuspageSurfaceOutage(t *testing.T) {
	t.Parallel()
	docs, h := claudeAppOutage(t)
	files, err := Render(docs, h)
	if err != nil {
		t.Fatal(err)
	}
	summary := files[StatuspageDir("anthropic")+"/summary.json"]
	buildtest.Golden(t, "claude-app-outage/"+StatuspageDir("anthropic")+"/summary.json", summary)
	var got struct {
		Status   spStatus
		AIStatus spSource
	}
	if err := json.Unmarshal(summary, &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != (spStatus{"critical", "Major System Outage"}) {
		t.Errorf("status %+v, want critical: the worst surface's", got.Status)
	}
	wantSurfaces := map[string]spSurface{
		"anthropic/app":     {api.MajorOutage, api.BasisOfficial},
		"anthropic/agent":   {api.MajorOutage, api.BasisOfficial},
		"anthropic/console": {api.Operational, api.BasisOfficial},
	}
	if a := got.AIStatus; a.API != "anthropic" || a.Status != api.Operational || !maps.Equal(a.Surfaces, wantSurfaces) {
		t.Errorf("aistatus %+v, want the API anthropic operational and %v", a, wantSurfaces)
	}

	lines := statuspageClient(t, files, []string{"anthropic"})
	want := "anthropic|critical|" +
		"anthropic*=operational,anthropic>k8w3r06qmzrp=operational," +
		"anthropic/app*=major_outage,anthropic/app>rwppv331jlwc=major_outage,anthropic/app>bpp5gb3hpjcl=major_outage," +
		"anthropic/agent*=major_outage,anthropic/agent>yyzkbfz2thpt=major_outage," +
		"anthropic/console*=operational,anthropic/console>0qbwn08sd68x=operational|" +
		"anthropic-q2kg8n613kr3@anthropic/app+anthropic/agent|2|0"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("the client read\n%s\nwant\n%s", strings.Join(lines, "\n"), want)
	}
}
