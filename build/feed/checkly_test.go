package feed

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

const checklyPath = "/api/status-page/mistral-ai/unresolved-incidents"

func mistral(srv *httptest.Server, filter ...string) catalog.Service {
	return catalog.Service{Slug: "mistral", StatusPage: "https://status.mistral.ai",
		Feed: catalog.Feed{Format: catalog.FormatCheckly, URL: srv.URL + checklyPath, Scope: filterScope(filter)}}
}

func readCheckly(t *testing.T, rep reply, filter ...string) (Result, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{checklyPath: rep})
	return read(t, checkly{}, mistral(srv, filter...))
}

func TestChecklyStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rep       reply
		filter    []string
		want      api.Status
		incidents int
	}{
		{"calm", reply{file: "checkly-calm.json"}, nil, api.Operational, 0},
		{"calm, bare array", reply{file: "checkly-calm-array.json"}, nil, api.Operational, 0},
		{"MINOR", reply{file: "checkly-minor.json"}, nil, api.Degraded, 1},
		{"MEDIUM", reply{file: "checkly-medium.json"}, nil, api.PartialOutage, 1},
		{"lower-case major beats MINOR", reply{file: "checkly-major.json"}, nil, api.MajorOutage, 2},
		{"MAINTENANCE", reply{file: "checkly-maintenance.json"}, nil, api.Maintenance, 0},
		{"a resolved MAJOR does not count", reply{file: "checkly-resolved.json"}, nil, api.Operational, 1},
		{"bare array with a MAJOR", reply{file: "checkly-incidents.json"}, nil, api.MajorOutage, 4},
		{"filtered by service name", reply{file: "checkly-major.json"}, []string{"embeddings"}, api.MajorOutage, 2},
		{"filtered to the MINOR's service only", reply{file: "checkly-incidents.json"}, []string{"le chat", "CONSOLE"}, api.Degraded, 2},
		{"filtered by incident name", reply{file: "checkly-incidents.json"}, []string{"jobs delayed"}, api.PartialOutage, 1},
		{"filter matching nothing", reply{file: "checkly-incidents.json"}, []string{"billing"}, api.Operational, 0},
		{"maintenance loses to an outage", reply{body: []byte(`[{"id":"a","severity":"MAINTENANCE","created_at":"2025-11-18T10:00:00Z"},{"id":"b","severity":"MEDIUM","created_at":"2025-11-18T10:00:00Z"}]`)}, nil, api.PartialOutage, 1},
		{"CRITICAL", reply{body: []byte(`{"incidents":[{"id":"a","severity":"CRITICAL","created_at":"2025-11-18T10:00:00Z"}]}`)}, nil, api.MajorOutage, 1},
		{"unknown severity is degraded", reply{body: []byte(`{"incidents":[{"id":"a","severity":"SEVERE-ISH","created_at":"2025-11-18T10:00:00Z"}]}`)}, nil, api.Degraded, 1},
		{"a skipped incident still counts", reply{body: []byte(`{"incidents":[{"severity":"MAJOR"}]}`)}, nil, api.MajorOutage, 0},
		{"resolved in lower case", reply{body: []byte(`{"incidents":[{"id":"a","severity":"MAJOR","lastUpdateStatus":"resolved","created_at":"2025-11-18T10:00:00Z"}]}`)}, nil, api.Operational, 1},
		{"extra fields", reply{body: []byte(`{"incidents":[],"meta":{"total":0}}`)}, nil, api.Operational, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readCheckly(t, tt.rep, tt.filter...)
			checkStatus(t, res, err, tt.want)
			if len(res.Incidents) != tt.incidents {
				t.Errorf("%d incidents, want %d: %+v", len(res.Incidents), tt.incidents, res.Incidents)
			}
		})
	}
}

func TestChecklyIncidents(t *testing.T) {
	t.Parallel()
	const (
		official = api.SourceOfficial
		page     = "https://status.mistral.ai"
	)
	tests := []struct {
		name string
		file string
		want []api.Incident
	}{
		{
			name: "open, resolved and skipped incidents, offsets to UTC",
			file: "checkly-incidents.json",
			want: []api.Incident{
				// Updated at its latest update.
				{ID: "mistral-8f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1ea1", Service: "mistral", Headline: "Chat Completions API outage", Severity: api.Critical,
					StartedAt: *ts(t, "2025-11-18T14:02:11.482Z"), Status: "identified", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T14:20:05Z")},
				// Lower-case severity, offset creation time, no updates.
				{ID: "mistral-9a1d2e3f-4b5c-4d6e-9f70-8b9cad0e1fb2", Service: "mistral", Headline: "Fine-tuning jobs delayed", Severity: api.Major,
					StartedAt: *ts(t, "2025-11-18T10:00:00Z"), Status: "investigating", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T10:00:00Z")},
				// Resolved: ended at its latest update, listed out of order.
				{ID: "mistral-ab2e3f40-5c6d-4e7f-a081-9cadbe1f20c3", Service: "mistral", Headline: "Slow responses on Le Chat", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-17T20:00:00Z"), EndedAt: ts(t, "2025-11-17T21:15:42.9Z"), Status: "resolved", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-17T21:15:42.9Z")},
				// No lastUpdateStatus: the status of the latest readable update,
				// which is not the last one listed.
				{ID: "mistral-ef627384-90a1-42b3-e4c5-d0e1f2536407", Service: "mistral", Headline: "Console login errors", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-16T09:00:00Z"), Status: "identified", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-16T09:10:00Z")},
				// Left out: the maintenance, and the incidents without an id,
				// with an unreadable or missing creation time.
			},
		},
		{
			name: "MEDIUM is major",
			file: "checkly-medium.json",
			want: []api.Incident{
				{ID: "mistral-1d8e3ca2-4f50-4b9c-8d2e-6f708b9cad12", Service: "mistral", Headline: "Completion API Degraded", Severity: api.Major,
					StartedAt: *ts(t, "2025-11-18T10:00:00Z"), Status: "identified", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T10:25:00Z")},
			},
		},
		{
			name: "resolved MAJOR",
			file: "checkly-resolved.json",
			want: []api.Incident{
				{ID: "mistral-5bc27ae6-8394-4fd0-8162-a3b4c5d0e156", Service: "mistral", Headline: "API unavailable", Severity: api.Critical,
					StartedAt: *ts(t, "2025-11-17T20:00:00Z"), EndedAt: ts(t, "2025-11-17T20:45:00Z"), Status: "resolved", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-17T20:45:00Z")},
			},
		},
		{name: "maintenance is not an incident", file: "checkly-maintenance.json"},
		{name: "calm", file: "checkly-calm.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readCheckly(t, reply{file: tt.file})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, tt.want)
		})
	}
}

func TestChecklyErrors(t *testing.T) {
	t.Parallel()
	cases := append(jsonDocErrors(t, "checkly-incidents.json"),
		errorCase{"incidents is a string", reply{file: "checkly-wrong-type.json"}, "cannot unmarshal string"},
		errorCase{"incidents is an object", reply{body: []byte(`{"incidents":{"id":"a"}}`)}, "cannot unmarshal object"},
		errorCase{"an array of strings", reply{body: []byte(`["a","b"]`)}, "cannot unmarshal string"},
		errorCase{"a severity is a number", reply{body: []byte(`[{"id":"a","severity":3}]`)}, "cannot unmarshal number"},
		errorCase{"services is a string", reply{body: []byte(`{"incidents":[{"id":"a","services":"API"}]}`)}, "cannot unmarshal string"},
		errorCase{"an update is a string", reply{body: []byte(`{"incidents":[{"id":"a","incidentUpdates":["resolved"]}]}`)}, "cannot unmarshal string"},
		errorCase{"a JSON boolean", reply{body: []byte(`true`)}, "cannot unmarshal bool"},
	)
	checkErrors(t, cases, func(t *testing.T, rep reply) (Result, error) { return readCheckly(t, rep) })
}

// A document without an incident list proves nothing: an error.
func TestChecklyEmptyDocuments(t *testing.T) {
	t.Parallel()
	checkProvesNothing(t, []string{`null`, `{}`, `{"incidents":null}`, ` {"other":[]} `},
		func(t *testing.T, rep reply) (Result, error) { return readCheckly(t, rep) })
	// Incidents missing everything are skipped, but each still is an open
	// incident of unknown severity.
	res, err := readCheckly(t, reply{body: []byte(` [ {}, null, {"id":""} ] `)})
	if err != nil || res.Status != api.Degraded || len(res.Incidents) != 0 {
		t.Errorf("got %+v, %v; want degraded and no incidents", res, err)
	}
}

func TestChecklyNilClient(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonAccept, map[string]reply{checklyPath: {file: "checkly-calm.json"}})
	res, err := checkly{}.Read(context.Background(), Request{Client: nil, Service: mistral(srv)})
	if err != nil || res.Status != api.Operational {
		t.Errorf("Read with a nil client = %+v, %v; want operational", res, err)
	}
}

func FuzzChecklyParse(f *testing.F) {
	addFixtures(f, "checkly-*")
	f.Add([]byte(`[{"id":"a","severity":"major","created_at":"2025-11-18T10:00:00Z","lastUpdateStatus":"RESOLVED","incidentUpdates":[{"created_at":"2025-11-18T11:00:00Z"}]}]`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"id":" ","severity":"major","created_at":"2025-11-18T10:00:00Z"}]`))
	plain := catalog.Service{Slug: "mistral", StatusPage: "https://status.mistral.ai"}
	filtered := plain
	filtered.Feed.Scope = filterScope([]string{"api"})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, svc := range []catalog.Service{plain, filtered} {
			res, err := parseCheckly(data, Request{Service: svc})
			checkParsed(t, svc, res, err)
		}
	})
}
