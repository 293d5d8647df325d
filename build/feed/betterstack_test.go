package feed

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

const betterStackPath = "/index.json"

func together(srv *httptest.Server, filter ...string) catalog.Service {
	return catalog.Service{Slug: "together", StatusPage: "https://status.together.ai",
		Feed: catalog.Feed{Format: catalog.FormatBetterStack, URL: srv.URL + betterStackPath, Scope: filterScope(filter)}}
}

func readBetterStack(t *testing.T, rep reply, filter ...string) (Result, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{betterStackPath: rep})
	return read(t, betterStack{}, together(srv, filter...))
}

func TestBetterStackStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rep    reply
		filter []string
		want   api.Status
		fails  api.FailureKind
	}{
		{"calm, not_monitored resource ignored", reply{file: "betterstack-calm.json"}, nil, api.Operational, ""},
		{"degraded", reply{file: "betterstack-degraded.json"}, nil, api.Degraded, ""},
		{"downtime with some resources down", reply{file: "betterstack-partial.json"}, nil, api.PartialOutage, ""},
		{"downtime with every monitored resource down", reply{file: "betterstack-major.json"}, nil, api.MajorOutage, ""},
		{"maintenance", reply{file: "betterstack-maintenance.json"}, nil, api.Maintenance, ""},
		{"aggregate operational lags a resource down", reply{file: "betterstack-lagging.json"}, nil, api.PartialOutage, ""},
		{"no resources, aggregate operational", reply{file: "betterstack-empty.json"}, nil, "", api.FailureEmpty},
		{"mixed, unfiltered", reply{file: "betterstack-filter.json"}, nil, api.PartialOutage, ""},
		{"filtered: aggregate downtime ignored", reply{file: "betterstack-filter.json"}, []string{"inference"}, api.Degraded, ""},
		{"filtered: all kept resources down", reply{file: "betterstack-filter.json"}, []string{"Fine-Tuning"}, api.MajorOutage, ""},
		{"filtered: two words", reply{file: "betterstack-filter.json"}, []string{"INFERENCE", "website"}, api.Degraded, ""},
		{"filtered: some kept resources down", reply{file: "betterstack-filter.json"}, []string{"website", "fine-tuning api"}, api.PartialOutage, ""},
		{"filtered: no resource kept", reply{file: "betterstack-filter.json"}, []string{"billing"}, "", api.FailureScope},
		{"filtered calm page", reply{file: "betterstack-calm.json"}, []string{"chat"}, api.Operational, ""},
		{"aggregate downtime, no resources", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":"downtime"}},"included":[]}`)}, nil, "", api.FailureEmpty},
		{"aggregate downtime, only not_monitored resources", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":"downtime"}},"included":[{"id":"1","type":"status_page_resource","attributes":{"public_name":"API","status":"not_monitored"}}]}`)}, nil, "", api.FailureSchema},
		{"aggregate downtime ignored, resources all up", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":"downtime"}},"included":[{"id":"1","type":"status_page_resource","attributes":{"public_name":"API","status":"operational"}}]}`)}, nil, api.Operational, ""},
		{"aggregate maintenance loses to a degraded resource", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":"maintenance"}},"included":[{"id":"1","type":"status_page_resource","attributes":{"public_name":"API","status":"degraded"}}]}`)}, nil, api.Degraded, ""},
		{"one resource, down, no aggregate", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_page_resource","attributes":{"public_name":"API","status":"downtime"}}]}`)}, nil, api.MajorOutage, ""},
		{"down and maintenance resources", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_page_resource","attributes":{"status":"downtime"}},{"id":"2","type":"status_page_resource","attributes":{"status":"maintenance"}}]}`)}, nil, api.PartialOutage, ""},
		{"unknown aggregate and resource states", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":"on_fire"}},"included":[{"id":"1","type":"status_page_resource","attributes":{"status":"paused"}}]}`)}, nil, "", api.FailureSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readBetterStack(t, tt.rep, tt.filter...)
			checkOutcome(t, res, err, tt.want, tt.fails)
		})
	}
}

func TestBetterStackIncidents(t *testing.T) {
	t.Parallel()
	const (
		official = api.SourceOfficial
		page     = "https://status.together.ai"
	)
	tests := []struct {
		name string
		file string
		want []api.Incident
	}{
		{
			name: "ongoing and resolved reports, offsets to UTC, skipped reports",
			file: "betterstack-incidents.json",
			want: []api.Incident{
				// Open; updated by its latest status update (whose
				// status_report_id is a number in one and a string in the other).
				{ID: "together-9900601", Service: "together", Headline: "Elevated latency on chat completions", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-18T13:40:00Z"), Status: "ongoing", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T14:05:33.12Z")},
				// Numeric JSON:API id; downtime is major; updated at its end,
				// which is later than its only update.
				{ID: "together-9900590", Service: "together", Headline: "Fine-tuning API down", Severity: api.Major,
					StartedAt: *ts(t, "2025-11-17T21:04:00Z"), EndedAt: ts(t, "2025-11-17T22:31:27Z"), Status: "resolved", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-17T22:31:27Z")},
				// aggregate_state operational is minor; the update with an
				// unreadable time is ignored.
				{ID: "together-9900540", Service: "together", Headline: "Dashboard login notice", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-16T08:00:00Z"), EndedAt: ts(t, "2025-11-16T08:30:00Z"), Status: "resolved", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-16T08:30:00Z")},
				// Left out: the maintenance, and the reports without an id,
				// with an unreadable or missing start, with an unreadable end.
			},
		},
		{
			name: "degraded",
			file: "betterstack-degraded.json",
			want: []api.Incident{
				{ID: "together-9900610", Service: "together", Headline: "Elevated latency on chat completions", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-18T13:40:00Z"), Status: "ongoing", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T13:40:00Z")},
			},
		},
		{
			name: "downtime",
			file: "betterstack-major.json",
			want: []api.Incident{
				{ID: "together-9900630", Service: "together", Headline: "All APIs unavailable", Severity: api.Major,
					StartedAt: *ts(t, "2025-11-18T14:01:00Z"), Status: "ongoing", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-18T14:01:00Z")},
			},
		},
		{name: "calm: past maintenance only", file: "betterstack-calm.json"},
		{name: "maintenance in progress is not an incident", file: "betterstack-maintenance.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readBetterStack(t, reply{file: tt.file})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, tt.want)
		})
	}
}

// With a filter, a report is kept when it affects a kept resource or its
// title names a filter word.
func TestBetterStackFilteredIncidents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		filter []string
		want   []string
	}{
		{nil, []string{"together-9910001", "together-9910002", "together-9910003"}},
		{[]string{"inference"}, []string{"together-9910002"}},
		{[]string{"fine-tuning"}, []string{"together-9910001"}},
		{[]string{"Inference", "WEBSITE"}, []string{"together-9910002", "together-9910003"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.filter, ","), func(t *testing.T) {
			res, err := readBetterStack(t, reply{file: "betterstack-filter.json"}, tt.filter...)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			var got []string
			for _, inc := range res.Incidents {
				got = append(got, inc.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("incidents %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBetterStackErrors(t *testing.T) {
	t.Parallel()
	cases := append(jsonDocErrors(t, "betterstack-incidents.json"),
		errorCase{"included is a string", reply{file: "betterstack-wrong-type.json"}, "cannot unmarshal string"},
		errorCase{"data is an array", reply{body: []byte(`{"data":[],"included":[]}`)}, "cannot unmarshal array"},
		errorCase{"aggregate_state is a number", reply{body: []byte(`{"data":{"attributes":{"aggregate_state":3}}}`)}, "cannot unmarshal number"},
		errorCase{"a resource status is a number", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_page_resource","attributes":{"status":1}}]}`)}, "status_page_resource"},
		errorCase{"report attributes are an array", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_report","attributes":[]}]}`)}, "status_report"},
		errorCase{"a report start is a number", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_report","attributes":{"starts_at":1763474580}}]}`)}, "cannot unmarshal number"},
		errorCase{"an update's attributes are a string", reply{body: []byte(`{"data":{},"included":[{"id":"1","type":"status_update","attributes":"x"}]}`)}, "status_update"},
		errorCase{"an included item is a string", reply{body: []byte(`{"data":{},"included":["status_report"]}`)}, "cannot unmarshal string"},
	)
	checkErrors(t, cases, func(t *testing.T, rep reply) (Result, error) { return readBetterStack(t, rep) })
}

// Valid JSON without resources proves nothing about the page: an error.
// Objects of types not used here, and ids of odd types, are no reason to fail
// a document that has resources.
func TestBetterStackEmptyDocuments(t *testing.T) {
	t.Parallel()
	checkProvesNothing(t, []string{
		`null`,
		`{}`,
		`{"data":null,"included":null}`,
		`{"data":{"attributes":null},"included":[null,{},{"type":"status_report","attributes":null},{"type":"status_page_section","attributes":{"name":7}}]}`,
		`{"data":{"attributes":{}},"included":[{"id":{"x":1},"type":"status_report","attributes":{"starts_at":"2025-11-18T10:00:00Z"}},{"id":true,"type":"status_report","attributes":{"starts_at":"2025-11-18T10:00:00Z"}}]}`,
	}, func(t *testing.T, rep reply) (Result, error) { return readBetterStack(t, rep) })
	res, err := readBetterStack(t, reply{body: []byte(`{"data":{"attributes":{}},"included":[{"id":"1","type":"status_page_resource","attributes":{"public_name":"API","status":"operational"}},{"id":{"x":1},"type":"status_report","attributes":{"starts_at":"2025-11-18T10:00:00Z"}},{"type":"status_page_section","attributes":{"name":7}}]}`)})
	if err != nil || res.Status != api.Operational || len(res.Incidents) != 0 {
		t.Errorf("got %+v, %v; want operational without incidents", res, err)
	}
}

func TestBetterStackNilClient(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonAccept, map[string]reply{betterStackPath: {file: "betterstack-calm.json"}})
	res, err := betterStack{}.Read(context.Background(), Request{Client: nil, Service: together(srv)})
	if err != nil || res.Status != api.Operational {
		t.Errorf("Read with a nil client = %+v, %v; want operational", res, err)
	}
}

func FuzzBetterStack(f *testing.F) {
	addFixtures(f, "betterstack-*")
	f.Add([]byte(`{"data":{"attributes":{"aggregate_state":"downtime"}},"included":[{"id":1,"type":"status_report","attributes":{"starts_at":"2025-11-18T10:00:00Z","ends_at":null}}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"data":{"attributes":{"aggregate_state":"downtime"}},"included":[{"id":"-/-","type":"status_report","attributes":{"starts_at":"2025-11-18T10:00:00Z"}}]}`))
	plain := catalog.Service{Slug: "together", StatusPage: "https://status.together.ai"}
	filtered := plain
	filtered.Feed.Scope = filterScope([]string{"api"})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, svc := range []catalog.Service{plain, filtered} {
			res, err := parseBetterStack(data, Request{Service: svc})
			checkParsed(t, svc, res, err)
		}
	})
}
