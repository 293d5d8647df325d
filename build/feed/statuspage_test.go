package feed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

const (
	summaryPath   = "/api/v2/summary.json"
	incidentsPath = "/api/v2/incidents.json"
)

// service returns a catalog entry whose feed points at srv.
func service(srv *httptest.Server, slug, statusPage string, format catalog.FeedFormat, withIncidents bool, filter ...string) catalog.Service {
	svc := catalog.Service{
		Slug:       slug,
		StatusPage: statusPage,
		Feed:       catalog.Feed{Format: format, URL: srv.URL + summaryPath, Scope: filterScope(filter)},
	}
	if withIncidents {
		svc.Feed.IncidentsURL = srv.URL + incidentsPath
	}
	return svc
}

func anthropic(srv *httptest.Server, withIncidents bool) catalog.Service {
	return service(srv, "anthropic", "https://status.claude.com", catalog.FormatStatuspage, withIncidents)
}

func openai(srv *httptest.Server, withIncidents bool) catalog.Service {
	return service(srv, "openai", "https://status.openai.com", catalog.FormatIncidentIO, withIncidents)
}

// readCatalog reads svc with the adapter its format names.
func readCatalog(t *testing.T, svc catalog.Service) (Result, error) {
	t.Helper()
	return read(t, Adapters()[svc.Feed.Format], svc)
}

// The status is the rollup of the in-scope components (scope.go); the
// page-wide indicator is not used.
func TestStatus(t *testing.T) {
	t.Parallel()
	claudeAPI := []string{"Claude API"}
	tests := []struct {
		name    string
		format  catalog.FeedFormat
		summary string
		filter  []string
		want    api.Status
		fails   api.FailureKind
	}{
		{"calm", catalog.FormatStatuspage, "statuspage_calm_summary.json", nil, api.Operational, ""},
		{"degraded", catalog.FormatStatuspage, "statuspage_degraded_summary.json", nil, api.Degraded, ""},
		{"partial outage", catalog.FormatStatuspage, "statuspage_partial_summary.json", nil, api.PartialOutage, ""},
		{"one of four components in major outage", catalog.FormatStatuspage, "statuspage_major_summary.json", nil, api.PartialOutage, ""},
		{"scoped to the API in major outage", catalog.FormatStatuspage, "statuspage_major_summary.json", claudeAPI, api.MajorOutage, ""},
		{"maintenance indicator, components operational", catalog.FormatStatuspage, "statuspage_maintenance_indicator_summary.json", nil, api.Operational, ""},
		{"one of four components under maintenance", catalog.FormatStatuspage, "statuspage_maintenance_component_summary.json", nil, api.Operational, ""},
		{"scoped to the component under maintenance", catalog.FormatStatuspage, "statuspage_maintenance_component_summary.json", []string{"Claude Console"}, api.Maintenance, ""},
		{"indicator minor lags the API's major outage", catalog.FormatStatuspage, "statuspage_lagging_summary.json", claudeAPI, api.MajorOutage, ""},
		{"indicator major with all components operational", catalog.FormatStatuspage, "statuspage_indicator_ahead_summary.json", nil, api.Operational, ""},
		{"group row in major_outage is skipped", catalog.FormatStatuspage, "statuspage_group_summary.json", nil, api.Degraded, ""},
		{"unknown component status is ignored", catalog.FormatStatuspage, "statuspage_unknown_component_summary.json", nil, api.Operational, ""},
		{"no page, no status: not a summary", catalog.FormatStatuspage, "statuspage_no_status_summary.json", nil, "", api.FailureSchema},
		{"github unfiltered: one of 11 in major outage", catalog.FormatStatuspage, "github_summary.json", nil, api.PartialOutage, ""},
		{"github scoped to Copilot", catalog.FormatStatuspage, "github_summary.json", []string{"Copilot"}, api.Degraded, ""},
		{"github scope ignores case", catalog.FormatStatuspage, "github_summary.json", []string{"copilot"}, api.Degraded, ""},
		{"github scope matching no component", catalog.FormatStatuspage, "github_no_copilot_summary.json", []string{"Copilot"}, "", api.FailureScope},
		{"incident.io calm", catalog.FormatIncidentIO, "incidentio_calm_summary.json", nil, api.Operational, ""},
		{"incident.io full_outage of one of five", catalog.FormatIncidentIO, "incidentio_full_outage_summary.json", nil, api.PartialOutage, ""},
		{"incident.io full_outage in scope", catalog.FormatIncidentIO, "incidentio_full_outage_summary.json", []string{"APIs"}, api.MajorOutage, ""},
		{"incident.io empty components", catalog.FormatIncidentIO, "incidentio_empty_components_summary.json", nil, "", api.FailureEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {file: tt.summary}})
			res, err := readCatalog(t, service(srv, "svc", "https://status.example.com", tt.format, false, tt.filter...))
			checkOutcome(t, res, err, tt.want, tt.fails)
		})
	}
}

func TestIncidents(t *testing.T) {
	t.Parallel()
	const official = api.SourceOfficial
	tests := []struct {
		name      string
		svc       func(*httptest.Server) catalog.Service
		routes    map[string]reply
		want      []api.Incident
		wantReads int // requests to incidents.json
		// timeline is the Result's Timeline: nil where the incident list
		// was not read, or one of its incidents could not be.
		timeline *Timeline
	}{
		{
			name: "statuspage: merged, resolved and open, offsets to UTC",
			svc:  func(s *httptest.Server) catalog.Service { return anthropic(s, true) },
			routes: map[string]reply{
				summaryPath:   {file: "statuspage_degraded_summary.json"},
				incidentsPath: {file: "statuspage_incidents.json"},
			},
			wantReads: 1,
			want: []api.Incident{
				// Only in the summary (newer than the incident list).
				{ID: "anthropic-c7v1n3m9k2pq", Service: "anthropic", Headline: "Increased latency on Claude Haiku", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-03T16:20:00Z"), Status: "identified", Source: official,
					URL: "https://stspg.io/4hrf0kqz8m3n", UpdatedAt: *ts(t, "2025-06-03T16:44:03Z")},
				// In both: the incident list's "monitoring" beats the summary's "investigating".
				{ID: "anthropic-yq2x8b0n4c1k", Service: "anthropic", Headline: "Elevated errors on Claude Opus", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-03T15:55:00Z"), Status: "monitoring", Source: official,
					URL: "https://stspg.io/vq5m1x8tdy2w", UpdatedAt: *ts(t, "2025-06-03T16:40:52.108Z")},
				{ID: "anthropic-5m0kq7hd9x2f", Service: "anthropic", Headline: "claude.ai unavailable for some users", Severity: api.Major,
					StartedAt: *ts(t, "2025-06-01T11:58:00Z"), EndedAt: ts(t, "2025-06-01T13:47:09.512Z"), Status: "resolved", Source: official,
					URL: "https://stspg.io/n1b4v7c0x3z6", UpdatedAt: *ts(t, "2025-06-01T13:47:09.512Z")},
				// Postmortem without resolved_at: ended at its last update.
				{ID: "anthropic-8fjt2r6w1vza", Service: "anthropic", Headline: "Claude API unavailable", Severity: api.Critical,
					StartedAt: *ts(t, "2025-05-31T02:10:00Z"), EndedAt: ts(t, "2025-05-31T14:02:33Z"), Status: "postmortem", Source: official,
					URL: "https://stspg.io/p9o8i7u6y5t4", UpdatedAt: *ts(t, "2025-05-31T14:02:33Z")},
				// Impact none is minor; no started_at means created_at; no shortlink means the status page.
				{ID: "anthropic-3kd8s0a2m5xn", Service: "anthropic", Headline: "Delayed usage reporting in Console", Severity: api.Minor,
					StartedAt: *ts(t, "2025-05-29T08:15:27.004Z"), EndedAt: ts(t, "2025-05-29T09:01:15.871Z"), Status: "resolved", Source: official,
					URL: "https://status.claude.com", UpdatedAt: *ts(t, "2025-05-29T09:01:15.871Z")},
				// Left out: the maintenance and the incident with an unreadable created_at.
			},
		},
		{
			name:   "statuspage: no incidents URL reads the summary only",
			svc:    func(s *httptest.Server) catalog.Service { return anthropic(s, false) },
			routes: map[string]reply{summaryPath: {file: "statuspage_degraded_summary.json"}, incidentsPath: {code: http.StatusInternalServerError}},
			want: []api.Incident{
				{ID: "anthropic-c7v1n3m9k2pq", Service: "anthropic", Headline: "Increased latency on Claude Haiku", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-03T16:20:00Z"), Status: "identified", Source: official,
					URL: "https://stspg.io/4hrf0kqz8m3n", UpdatedAt: *ts(t, "2025-06-03T16:44:03Z")},
				{ID: "anthropic-yq2x8b0n4c1k", Service: "anthropic", Headline: "Elevated errors on Claude Opus", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-03T15:55:00Z"), Status: "investigating", Source: official,
					URL: "https://stspg.io/vq5m1x8tdy2w", UpdatedAt: *ts(t, "2025-06-03T16:02:11.504Z")},
			},
		},
		{
			name: "github filtered to Copilot: by component or by name",
			svc: func(s *httptest.Server) catalog.Service {
				return service(s, "github-copilot", "https://www.githubstatus.com", catalog.FormatStatuspage, true, "Copilot")
			},
			routes: map[string]reply{
				summaryPath:   {file: "github_summary.json"},
				incidentsPath: {file: "github_incidents.json"},
			},
			wantReads: 1,
			timeline:  &Timeline{},
			want: []api.Incident{
				{ID: "github-copilot-6t2w9xq0hb4m", Service: "github-copilot", Headline: "Incident with Copilot", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-03T16:05:09.551Z"), Status: "identified", Source: official,
					URL: "https://stspg.io/c8r1m3z7v2kk", UpdatedAt: *ts(t, "2025-06-03T16:21:44.018Z")},
				{ID: "github-copilot-0vzq5n8m2c7b", Service: "github-copilot", Headline: "Copilot Chat responses are slow", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-02T11:12:00Z"), EndedAt: ts(t, "2025-06-02T12:03:17.455Z"), Status: "resolved", Source: official,
					URL: "https://stspg.io/g4h5j6k7l8z9", UpdatedAt: *ts(t, "2025-06-02T12:03:17.455Z")},
				{ID: "github-copilot-2p4o6i8u0y9t", Service: "github-copilot", Headline: "Incident with Codespaces and Copilot", Severity: api.Major,
					StartedAt: *ts(t, "2025-05-31T19:40:00Z"), EndedAt: ts(t, "2025-05-31T21:02:48.78Z"), Status: "resolved", Source: official,
					URL: "https://stspg.io/q9w8e7r6t5y4", UpdatedAt: *ts(t, "2025-05-31T21:02:48.78Z")},
			},
		},
		{
			name: "incident.io: ULIDs, no shortlink or started_at",
			svc:  func(s *httptest.Server) catalog.Service { return openai(s, true) },
			routes: map[string]reply{
				summaryPath:   {file: "incidentio_full_outage_summary.json"},
				incidentsPath: {file: "incidentio_incidents.json"},
			},
			wantReads: 1,
			timeline:  &Timeline{},
			want: []api.Incident{
				{ID: "openai-01JX4ZQ8M6Y3T0K2V9D7R5H1CE", Service: "openai", Headline: "Increased error rates for Chat Completions", Severity: api.Major,
					StartedAt: *ts(t, "2025-06-03T16:21:07.354Z"), Status: "identified", Source: official,
					URL: "https://status.openai.com", UpdatedAt: *ts(t, "2025-06-03T16:58:44.001Z")},
				{ID: "openai-01JWZ3B1T9N4X7C2V5M8K0Q6RS", Service: "openai", Headline: "Elevated latency for Sora video generation", Severity: api.Minor,
					StartedAt: *ts(t, "2025-06-02T21:47:30.112Z"), EndedAt: ts(t, "2025-06-02T23:05:58.64Z"), Status: "resolved", Source: official,
					URL: "https://status.openai.com", UpdatedAt: *ts(t, "2025-06-02T23:05:58.64Z")},
				{ID: "openai-01JWTM7RPQ0F3E8D1C6B9A2Z5Y", Service: "openai", Headline: "ChatGPT unavailable", Severity: api.Critical,
					StartedAt: *ts(t, "2025-06-01T03:14:00Z"), EndedAt: ts(t, "2025-06-01T05:02:10Z"), Status: "resolved", Source: official,
					URL: "https://status.openai.com", UpdatedAt: *ts(t, "2025-06-01T05:29:41Z")},
			},
		},
		{
			name:      "incident.io: incidents.json 404 falls back to the summary",
			svc:       func(s *httptest.Server) catalog.Service { return openai(s, true) },
			routes:    map[string]reply{summaryPath: {file: "incidentio_full_outage_summary.json"}},
			wantReads: 1,
			want: []api.Incident{
				{ID: "openai-01JX4ZQ8M6Y3T0K2V9D7R5H1CE", Service: "openai", Headline: "Increased error rates for Chat Completions", Severity: api.Major,
					StartedAt: *ts(t, "2025-06-03T16:21:07.354Z"), Status: "investigating", Source: official,
					URL: "https://status.openai.com", UpdatedAt: *ts(t, "2025-06-03T16:21:07.354Z")},
			},
		},
		{
			name:      "incident.io: calm page, empty incident list",
			svc:       func(s *httptest.Server) catalog.Service { return openai(s, true) },
			routes:    map[string]reply{summaryPath: {file: "incidentio_calm_summary.json"}, incidentsPath: {body: []byte(`{"incidents":[]}`)}},
			wantReads: 1,
			timeline:  &Timeline{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := serve(t, jsonAccept, tt.routes)
			res, err := readCatalog(t, tt.svc(srv))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, tt.want)
			if (res.Timeline == nil) != (tt.timeline == nil) || (res.Timeline != nil && *res.Timeline != *tt.timeline) {
				t.Errorf("Timeline = %+v, want %+v", res.Timeline, tt.timeline)
			}
			if n := requests(incidentsPath); n != tt.wantReads {
				t.Errorf("incidents.json read %d times, want %d", n, tt.wantReads)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	// bad serves rep at path, and good documents at the other one.
	bad := func(format catalog.FeedFormat, path string) func(*testing.T, reply) (Result, error) {
		return func(t *testing.T, rep reply) (Result, error) {
			routes := map[string]reply{summaryPath: {file: "statuspage_calm_summary.json"}, incidentsPath: {file: "statuspage_incidents.json"}}
			routes[path] = rep
			srv, _ := serve(t, jsonAccept, routes)
			return readCatalog(t, service(srv, "svc", "https://status.example.com", format, true))
		}
	}
	big := oversized(fixture(t, "statuspage_calm_summary.json"))
	checkErrors(t, []errorCase{
		{"malformed JSON", reply{file: "malformed_summary.json"}, "decoding JSON"},
		{"truncated JSON", reply{file: "truncated_summary.json"}, "unexpected end of JSON"},
		{"components is a string", reply{file: "wrong_type_summary.json"}, "cannot unmarshal string"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"summary HTTP 500", reply{code: 500, body: []byte(`{"error":"internal"}`)}, "HTTP 500"},
		{"summary over MaxBody", reply{body: big}, "larger than"},
	}, bad(catalog.FormatStatuspage, summaryPath))
	checkErrors(t, []errorCase{
		{"incidents is an object", reply{file: "wrong_type_incidents.json"}, "cannot unmarshal object"},
		{"incidents over MaxBody", reply{body: big}, "larger than"},
		{"statuspage incidents.json 404", reply{code: 404}, "HTTP 404"},
		{"statuspage incidents.json 503", reply{code: 503}, "HTTP 503"},
	}, bad(catalog.FormatStatuspage, incidentsPath))
	checkErrors(t, []errorCase{
		{"incident.io summary 404", reply{code: 404}, "HTTP 404"},
		{"incident.io truncated summary", reply{file: "truncated_summary.json"}, "unexpected end of JSON"},
	}, bad(catalog.FormatIncidentIO, summaryPath))
	checkErrors(t, []errorCase{
		{"incident.io incidents.json 500", reply{code: 500}, "HTTP 500"},
		{"incident.io incidents.json 429", reply{code: 429}, "HTTP 429"},
		{"incident.io incidents.json malformed", reply{file: "malformed_summary.json"}, "decoding JSON"},
	}, bad(catalog.FormatIncidentIO, incidentsPath))
}

// A body of exactly MaxBody bytes is still read: the cap is not off by one.
func TestBodyAtCap(t *testing.T) {
	t.Parallel()
	calm := fixture(t, "statuspage_calm_summary.json")
	body := append([]byte(strings.Repeat(" ", MaxBody-len(calm))), calm...)
	srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {body: body}})
	res, err := readCatalog(t, anthropic(srv, false))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if res.Status != api.Operational {
		t.Errorf("Status = %q, want operational", res.Status)
	}
}

// Valid JSON that is not a summary proves nothing: an error, for both
// formats. Incidents missing everything are skipped.
func TestEmptyDocuments(t *testing.T) {
	t.Parallel()
	for _, f := range []catalog.FeedFormat{catalog.FormatStatuspage, catalog.FormatIncidentIO} {
		t.Run(string(f), func(t *testing.T) {
			checkProvesNothing(t, []string{
				`null`,
				`{}`,
				`{"status":null,"components":null,"incidents":null}`,
				`{"page":{},"components":[]}`,
				`{"components":[{"name":"API","status":"operational","group":true}],"incidents":[{"id":"z","created_at":"2025-06-03 10:00:00"}]}`,
			}, func(t *testing.T, rep reply) (Result, error) {
				srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: rep, incidentsPath: rep})
				return readCatalog(t, service(srv, "svc", "https://status.example.com", f, true))
			})
		})
	}
	body := `{"status":{"indicator":"unheard-of"},"components":[{"id":"a","name":"API","status":"operational"}],"incidents":[{},{"id":"x"},{"id":"y","impact":"major"}]}`
	srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {body: []byte(body)}, incidentsPath: {body: []byte(body)}})
	res, err := readCatalog(t, service(srv, "svc", "https://status.example.com", catalog.FormatStatuspage, true))
	if err != nil || res.Status != api.Operational || len(res.Incidents) != 0 {
		t.Errorf("got %+v, %v; want operational and no incidents", res, err)
	}
}

func TestNilClient(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {file: "incidentio_calm_summary.json"}})
	res, err := Adapters()[catalog.FormatIncidentIO].Read(context.Background(), Request{Client: nil, Service: openai(srv, false)})
	if err != nil || res.Status != api.Operational {
		t.Errorf("Read with a nil client = %+v, %v; want operational", res, err)
	}
}

// The components an incident is attributed to (spListed): its own list, or,
// when that is empty, every component its updates name; an update of
// another shape names nothing, and never fails the document.
func TestIncidentComponentsFromUpdates(t *testing.T) {
	t.Parallel()
	onPage := map[string]ref{"api": {ID: "api", Name: "Claude API", GroupID: "dev", Group: "Developer"}}
	api := onPage["api"]
	web := ref{ID: "web", Name: "claude.ai"}
	tests := []struct {
		name     string
		incident string
		want     []ref
	}{
		{"its own list wins over the updates",
			`{"components":[{"id":"web","name":"claude.ai"}],"incident_updates":[{"affected_components":[{"code":"api","name":"Claude API"}]}]}`,
			[]ref{web}},
		{"an empty list: the updates, once each, taken from the page when on it",
			`{"components":[],"incident_updates":[{"affected_components":null},{"affected_components":[{"code":"api","name":"Developer - Claude API"},{"code":"web","name":"claude.ai"}]},{"affected_components":[{"code":"api","name":"Claude API"}]}]}`,
			[]ref{api, web}},
		{"no list at all", `{"incident_updates":[{"affected_components":[{"code":"api","name":"Claude API"}]}]}`, []ref{api}},
		{"a name without a code", `{"incident_updates":[{"affected_components":[{"name":"claude.ai"}]}]}`, []ref{{Name: "claude.ai"}}},
		{"an entry naming nothing", `{"incident_updates":[{"affected_components":[{"code":"","name":""}]}]}`, nil},
		{"an update of another shape is skipped",
			`{"incident_updates":["resolved",{"affected_components":"api"},{"affected_components":[{"code":"web","name":"claude.ai"}]}]}`,
			[]ref{web}},
		{"updates that are not a list", `{"incident_updates":{"affected_components":[{"code":"api"}]}}`, nil},
		{"null updates", `{"incident_updates":null}`, nil},
		{"no updates", `{}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in spIncident
			if err := json.Unmarshal([]byte(tt.incident), &in); err != nil {
				t.Fatalf("an incident with these updates must decode: %v", err)
			}
			if got := spListed(in, onPage); !slices.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzStatuspage feeds arbitrary summary and incident-list documents through
// the decoding and conversion Read does: never a panic, always a valid
// status and well-formed incidents.
func FuzzStatuspage(f *testing.F) {
	lists := fixtures(f, "*_incidents.json")
	for i, sum := range fixtures(f, "*_summary.json") {
		f.Add(sum, lists[i%len(lists)], i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, summary, list []byte, filtered bool) {
		svc := catalog.Service{Slug: "github-copilot", StatusPage: "https://www.githubstatus.com"}
		if filtered {
			svc.Feed.Scope = filterScope([]string{"Copilot"})
		}
		var sum summaryDoc
		var doc incidentsDoc
		if json.Unmarshal(summary, &sum) != nil || json.Unmarshal(list, &doc) != nil || sum.Components == nil || doc.Incidents == nil {
			return // Read reports these as errors
		}
		res, err := statuspageResult(svc, catalog.FormatStatuspage, *sum.Components, sum.Incidents, *doc.Incidents)
		checkParsed(t, svc, res, err)
	})
}

// incident.io's summary.json carries a rotating subset of a large page's
// components: with a components URL, the statuses come from the full list.
func TestComponentsFromTheFullList(t *testing.T) {
	t.Parallel()
	summary := `{"page":{"id":"p"},"status":{"indicator":"none"},"components":[{"id":"a","name":"Embeddings","status":"operational"}],"incidents":[]}`
	full := `{"page":{"id":"p"},"components":[{"id":"a","name":"Embeddings","status":"operational"},{"id":"b","name":"Chat Completions","status":"major_outage"}]}`
	srv, _ := serve(t, jsonAccept, map[string]reply{summaryPath: {body: []byte(summary)}, "/api/v2/components.json": {body: []byte(full)}})
	svc := service(srv, "openai", "https://status.openai.com", catalog.FormatIncidentIO, false)
	res, err := readCatalog(t, svc)
	if err != nil || res.Status != api.Operational || len(res.Components) != 1 {
		t.Fatalf("summary alone: %+v, %v", res, err)
	}
	svc.Feed.ComponentsURL = srv.URL + "/api/v2/components.json"
	res, err = readCatalog(t, svc)
	if err != nil || res.Status != api.PartialOutage || len(res.Components) != 2 {
		t.Fatalf("with the full list: %+v, %v; want the Chat Completions outage to count", res, err)
	}
}

// TestSpTimeline checks how far back an incident list is complete: all the
// page keeps below spListLength incidents; from the oldest at the cap,
// where older ones may have been cut; nowhere when an incident's times
// cannot be read (it is left out, and its span would read operational).
func TestSpTimeline(t *testing.T) {
	t.Parallel()
	base := time.Date(2025, 6, 3, 12, 0, 0, 0, time.UTC)
	list := func(n int) []spIncident {
		var out []spIncident
		for i := range n {
			at := base.Add(-time.Duration(i) * time.Hour).Format(time.RFC3339)
			out = append(out, spIncident{ID: fmt.Sprint("inc", i), StartedAt: at, CreatedAt: at, UpdatedAt: at, ResolvedAt: at})
		}
		return out
	}
	unreadable := list(3)
	unreadable[1].ResolvedAt = "yesterday"
	noID := list(3)
	noID[2].ID = ""
	for _, tt := range []struct {
		name   string
		listed []spIncident
		want   *Timeline
	}{
		{"empty list", nil, &Timeline{}},
		{"one below the cap", list(spListLength - 1), &Timeline{}},
		{"at the cap", list(spListLength), &Timeline{Since: base.Add(-(spListLength - 1) * time.Hour)}},
		{"an unreadable time", unreadable, nil},
		{"an incident without id", noID, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := spTimeline(tt.listed)
			if (got == nil) != (tt.want == nil) || (got != nil && !got.Since.Equal(tt.want.Since)) {
				t.Errorf("spTimeline = %+v, want %+v", got, tt.want)
			}
		})
	}
}
