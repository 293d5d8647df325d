package feed

import (
	"net/http/httptest"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

func gemini(srv *httptest.Server, filter ...string) catalog.Service {
	return catalog.Service{Slug: "google-gemini", StatusPage: "https://status.cloud.google.com",
		Feed: catalog.Feed{Format: catalog.FormatGoogleCloud, URL: srv.URL + "/feed", Scope: catalog.Scope{ComponentNames: filter}}}
}

func readGoogleCloud(t *testing.T, rep reply, filter ...string) (Result, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{"/feed": rep})
	return read(t, googleCloud{}, gemini(srv, filter...))
}

func TestGoogleCloudStatus(t *testing.T) {
	t.Parallel()
	gem := []string{"Gemini"}
	tests := []struct {
		name          string
		rep           reply
		filter        []string
		want          api.Status
		wantIncidents int
	}{
		{"empty document", reply{file: "gcloud-empty.json"}, gem, api.Operational, 0},
		{"only ended incidents", reply{file: "gcloud-calm.json"}, gem, api.Operational, 1},
		{"only ended incidents, unfiltered", reply{file: "gcloud-calm.json"}, nil, api.Operational, 2},
		{"open SERVICE_INFORMATION; another product's outage is filtered out", reply{file: "gcloud-degraded.json"}, gem, api.Degraded, 1},
		{"unfiltered, the other product's outage counts", reply{file: "gcloud-degraded.json"}, nil, api.MajorOutage, 2},
		{"open SERVICE_DISRUPTION, empty end; ended outage ignored", reply{file: "gcloud-partial.json"}, gem, api.PartialOutage, 2},
		{"open SERVICE_OUTAGE", reply{file: "gcloud-major.json"}, gem, api.MajorOutage, 1},
		{"filter ignores case", reply{file: "gcloud-major.json"}, []string{"vertex gemini"}, api.MajorOutage, 1},
		{"no matching product (description mentions Gemini)", reply{file: "gcloud-other-products.json"}, gem, api.Operational, 0},
		{"every incident matters without a filter", reply{file: "gcloud-other-products.json"}, nil, api.MajorOutage, 2},
		{"no status_impact: severity high decides", reply{file: "gcloud-incidents.json"}, gem, api.MajorOutage, 4},
		{"severity medium without impact", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"medium","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.PartialOutage, 1},
		{"severity low without impact", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"low","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.Degraded, 1},
		{"neither impact nor severity: still degraded", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.Degraded, 1},
		{"impact beats severity", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"high","status_impact":"SERVICE_INFORMATION","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.Degraded, 1},
		{"open outage without a readable begin is skipped", reply{body: []byte(`[{"id":"a","begin":"yesterday","status_impact":"SERVICE_OUTAGE","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.Operational, 0},
		{"incident with no products never matches a filter", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","status_impact":"SERVICE_OUTAGE","external_desc":"Gemini down"}]`)}, gem, api.Operational, 0},
		{"duplicate id listed once", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]},{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]}]`)}, gem, api.Degraded, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readGoogleCloud(t, tt.rep, tt.filter...)
			checkStatus(t, res, err, tt.want)
			if len(res.Incidents) != tt.wantIncidents {
				t.Errorf("%d incidents, want %d: %+v", len(res.Incidents), tt.wantIncidents, res.Incidents)
			}
		})
	}
	// JSON null is not the list: it proves nothing.
	checkProvesNothing(t, []string{"null\n"}, func(t *testing.T, rep reply) (Result, error) { return readGoogleCloud(t, rep, gem...) })
}

func TestGoogleCloudIncidents(t *testing.T) {
	t.Parallel()
	const official = api.SourceOfficial
	res, err := readGoogleCloud(t, reply{file: "gcloud-incidents.json"}, "Gemini")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	checkIncidents(t, res.Incidents, []api.Incident{
		{ID: "google-gemini-Lr4vM8hWz2QpTn6KcY1a", Service: "google-gemini",
			Headline: "Vertex Gemini API customers are experiencing elevated error rates in us-central1", Severity: api.Major,
			StartedAt: *ts(t, "2025-06-03T14:25:00Z"), Status: "ongoing", Source: official,
			URL: "https://status.cloud.google.com/incidents/Lr4vM8hWz2QpTn6KcY1a", UpdatedAt: *ts(t, "2025-06-03T16:02:45Z")},
		// end "" is open; no uri: the URL is built from the id.
		{ID: "google-gemini-Q1w2E3r4T5y6U7i8O9p0", Service: "google-gemini",
			Headline: "Multiple Google Cloud products are unavailable in europe-west4", Severity: api.Critical,
			StartedAt: *ts(t, "2025-06-03T12:07:00Z"), Status: "ongoing", Source: official,
			URL: "https://status.cloud.google.com/incidents/Q1w2E3r4T5y6U7i8O9p0", UpdatedAt: *ts(t, "2025-06-03T15:30:00Z")},
		// -07:00 offsets become UTC.
		{ID: "google-gemini-b7XnQ2sD5fGh8JkL0pZx", Service: "google-gemini",
			Headline: "Increased latency for Gemini API requests", Severity: api.Minor,
			StartedAt: *ts(t, "2025-06-02T16:10:00Z"), EndedAt: ts(t, "2025-06-02T18:45:00Z"), Status: "resolved", Source: official,
			URL: "https://status.cloud.google.com/incidents/b7XnQ2sD5fGh8JkL0pZx", UpdatedAt: *ts(t, "2025-06-02T19:03:31Z")},
		// No begin: created; no modified: the last update; no description:
		// the products; unknown severity: minor; "/incidents/…" uri.
		{ID: "google-gemini-zR2xT4vB6nM8kJ0hG1fD", Service: "google-gemini",
			Headline: "Google Cloud incident: Gemini Code Assist", Severity: api.Minor,
			StartedAt: *ts(t, "2025-05-28T22:14:03Z"), EndedAt: ts(t, "2025-05-29T01:30:00Z"), Status: "resolved", Source: official,
			URL: "https://status.cloud.google.com/incidents/zR2xT4vB6nM8kJ0hG1fD", UpdatedAt: *ts(t, "2025-05-29T01:42:10Z")},
		// Left out: Cloud SQL (filter), the unreadable begin, the missing id.
	})
}

func TestGoogleCloudErrors(t *testing.T) {
	t.Parallel()
	cases := []errorCase{
		{"malformed JSON", reply{file: "gcloud-malformed.json"}, "invalid character"},
		{"truncated JSON", reply{file: "gcloud-truncated.json"}, "unexpected end of JSON"},
		{"object instead of array", reply{file: "gcloud-wrong-type.json"}, "cannot unmarshal object"},
		{"affected_products is a string", reply{file: "gcloud-wrong-type-products.json"}, "cannot unmarshal string"},
		{"end is a number", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","end":0}]`)}, "cannot unmarshal number"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"HTTP 500", reply{code: 500, body: []byte(`[]`)}, "HTTP 500"},
		{"HTTP 404", reply{code: 404}, "HTTP 404"},
		{"over MaxBody", reply{body: oversized([]byte("[]"))}, "larger than"},
	}
	checkErrors(t, cases, func(t *testing.T, rep reply) (Result, error) { return readGoogleCloud(t, rep, "Gemini") })
}

func FuzzGoogleCloud(f *testing.F) {
	addFixtures(f, "gcloud-*")
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"id":"???","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini"}]}]`))
	f.Add([]byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","end":"","affected_products":[{"title":"Gemini"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, filter := range [][]string{{"Gemini"}, nil} {
			svc := catalog.Service{Slug: "google-gemini", Feed: catalog.Feed{Format: catalog.FormatGoogleCloud, Scope: catalog.Scope{ComponentNames: filter}}}
			res, err := parseGoogleCloud(data, Request{Service: svc})
			if checkParsed(t, svc, res, err) {
				checkDistinctHeadlines(t, res)
			}
		}
	})
}
