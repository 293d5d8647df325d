package feed

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

const jsonAccept = "application/json"

// serveOneFeed serves one feed document at /feed and counts the requests.
// It answers 406 to a request whose Accept header is not accept, so every
// test also checks the header. The content type follows the fixture's
// extension (or, for a raw body, its first byte).
func serveOneFeed(t *testing.T, accept string, rep reply) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/feed" {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Accept"); got != accept {
			http.Error(w, "unexpected Accept: "+got, http.StatusNotAcceptable)
			return
		}
		body := rep.body
		if rep.file != "" {
			var err error
			if body, err = os.ReadFile(filepath.Join("testdata", rep.file)); err != nil {
				t.Errorf("fixture: %v", err)
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		switch {
		case strings.HasSuffix(rep.file, ".html"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		case strings.HasSuffix(rep.file, ".xml"), rep.file == "" && bytes.HasPrefix(bytes.TrimSpace(body), []byte("<")):
			w.Header().Set("Content-Type", "application/xml")
		default:
			w.Header().Set("Content-Type", "application/json")
		}
		if rep.code != 0 {
			w.WriteHeader(rep.code)
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// feedService is a catalog entry whose feed is srv's /feed.
func feedService(srv *httptest.Server, slug, statusPage string, format snapshot.FeedFormat, filter ...string) snapshot.Service {
	return snapshot.Service{
		Slug:       slug,
		StatusPage: statusPage,
		Feed:       snapshot.Feed{Format: format, URL: srv.URL + "/feed", Filter: filter},
	}
}

func gemini(srv *httptest.Server, filter ...string) snapshot.Service {
	return feedService(srv, "google-gemini", "https://status.cloud.google.com", snapshot.FormatGoogleCloud, filter...)
}

func readGoogleCloud(t *testing.T, rep reply, filter ...string) (Result, error) {
	t.Helper()
	srv, _ := serveOneFeed(t, jsonAccept, rep)
	return googleCloud{}.Read(context.Background(), &http.Client{Timeout: 10 * time.Second}, gemini(srv, filter...))
}

func TestGoogleCloudStatus(t *testing.T) {
	gem := []string{"Gemini"}
	tests := []struct {
		name          string
		rep           reply
		filter        []string
		want          snapshot.Status
		wantIncidents int
	}{
		{"empty document", reply{file: "gcloud-empty.json"}, gem, snapshot.Operational, 0},
		{"only ended incidents", reply{file: "gcloud-calm.json"}, gem, snapshot.Operational, 1},
		{"only ended incidents, unfiltered", reply{file: "gcloud-calm.json"}, nil, snapshot.Operational, 2},
		{"open SERVICE_INFORMATION; another product's outage is filtered out", reply{file: "gcloud-degraded.json"}, gem, snapshot.Degraded, 1},
		{"unfiltered, the other product's outage counts", reply{file: "gcloud-degraded.json"}, nil, snapshot.MajorOutage, 2},
		{"open SERVICE_DISRUPTION, empty end; ended outage ignored", reply{file: "gcloud-partial.json"}, gem, snapshot.PartialOutage, 2},
		{"open SERVICE_OUTAGE", reply{file: "gcloud-major.json"}, gem, snapshot.MajorOutage, 1},
		{"filter ignores case", reply{file: "gcloud-major.json"}, []string{"vertex gemini"}, snapshot.MajorOutage, 1},
		{"no matching product (description mentions Gemini)", reply{file: "gcloud-other-products.json"}, gem, snapshot.Operational, 0},
		{"every incident matters without a filter", reply{file: "gcloud-other-products.json"}, nil, snapshot.MajorOutage, 2},
		{"no status_impact: severity high decides", reply{file: "gcloud-incidents.json"}, gem, snapshot.MajorOutage, 4},
		{"JSON null declares nothing", reply{body: []byte("null\n")}, gem, snapshot.Unknown, 0},
		{"severity medium without impact", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"medium","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.PartialOutage, 1},
		{"severity low without impact", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"low","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.Degraded, 1},
		{"neither impact nor severity: still degraded", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.Degraded, 1},
		{"impact beats severity", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","severity":"high","status_impact":"SERVICE_INFORMATION","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.Degraded, 1},
		{"open outage without a readable begin is skipped", reply{body: []byte(`[{"id":"a","begin":"yesterday","status_impact":"SERVICE_OUTAGE","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.Operational, 0},
		{"incident with no products never matches a filter", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","status_impact":"SERVICE_OUTAGE","external_desc":"Gemini down"}]`)}, gem, snapshot.Operational, 0},
		{"duplicate id listed once", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]},{"id":"a","begin":"2025-06-03T10:00:00Z","affected_products":[{"title":"Gemini API"}]}]`)}, gem, snapshot.Degraded, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readGoogleCloud(t, tt.rep, tt.filter...)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != tt.want {
				t.Errorf("Status = %q, want %q", res.Status, tt.want)
			}
			if len(res.Incidents) != tt.wantIncidents {
				t.Errorf("%d incidents, want %d: %+v", len(res.Incidents), tt.wantIncidents, res.Incidents)
			}
		})
	}
}

func TestGoogleCloudIncidents(t *testing.T) {
	const official = snapshot.SourceOfficial
	res, err := readGoogleCloud(t, reply{file: "gcloud-incidents.json"}, "Gemini")
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	checkIncidents(t, res.Incidents, []snapshot.Incident{
		{ID: "google-gemini-Lr4vM8hWz2QpTn6KcY1a", Service: "google-gemini",
			Headline: "Vertex Gemini API customers are experiencing elevated error rates in us-central1", Severity: snapshot.Major,
			StartedAt: *ts(t, "2025-06-03T14:25:00Z"), Status: "ongoing", Source: official,
			URL: "https://status.cloud.google.com/incidents/Lr4vM8hWz2QpTn6KcY1a", UpdatedAt: *ts(t, "2025-06-03T16:02:45Z")},
		// end "" is open; no uri: the URL is built from the id.
		{ID: "google-gemini-Q1w2E3r4T5y6U7i8O9p0", Service: "google-gemini",
			Headline: "Multiple Google Cloud products are unavailable in europe-west4", Severity: snapshot.Critical,
			StartedAt: *ts(t, "2025-06-03T12:07:00Z"), Status: "ongoing", Source: official,
			URL: "https://status.cloud.google.com/incidents/Q1w2E3r4T5y6U7i8O9p0", UpdatedAt: *ts(t, "2025-06-03T15:30:00Z")},
		// -07:00 offsets become UTC.
		{ID: "google-gemini-b7XnQ2sD5fGh8JkL0pZx", Service: "google-gemini",
			Headline: "Increased latency for Gemini API requests", Severity: snapshot.Minor,
			StartedAt: *ts(t, "2025-06-02T16:10:00Z"), EndedAt: ts(t, "2025-06-02T18:45:00Z"), Status: "resolved", Source: official,
			URL: "https://status.cloud.google.com/incidents/b7XnQ2sD5fGh8JkL0pZx", UpdatedAt: *ts(t, "2025-06-02T19:03:31Z")},
		// No begin: created; no modified: the last update; no description:
		// the products; unknown severity: minor; "/incidents/…" uri.
		{ID: "google-gemini-zR2xT4vB6nM8kJ0hG1fD", Service: "google-gemini",
			Headline: "Google Cloud incident: Gemini Code Assist", Severity: snapshot.Minor,
			StartedAt: *ts(t, "2025-05-28T22:14:03Z"), EndedAt: ts(t, "2025-05-29T01:30:00Z"), Status: "resolved", Source: official,
			URL: "https://status.cloud.google.com/incidents/zR2xT4vB6nM8kJ0hG1fD", UpdatedAt: *ts(t, "2025-05-29T01:42:10Z")},
		// Left out: Cloud SQL (filter), the unreadable begin, the missing id.
	})
}

func TestGoogleCloudErrors(t *testing.T) {
	oversized := append(bytes.Repeat([]byte(" "), MaxBody), "[]"...)
	tests := []struct {
		name string
		rep  reply
		want string
	}{
		{"malformed JSON", reply{file: "gcloud-malformed.json"}, "invalid character"},
		{"truncated JSON", reply{file: "gcloud-truncated.json"}, "unexpected end of JSON"},
		{"object instead of array", reply{file: "gcloud-wrong-type.json"}, "cannot unmarshal object"},
		{"affected_products is a string", reply{file: "gcloud-wrong-type-products.json"}, "cannot unmarshal string"},
		{"end is a number", reply{body: []byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","end":0}]`)}, "cannot unmarshal number"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"HTTP 500", reply{code: 500, body: []byte(`[]`)}, "HTTP 500"},
		{"HTTP 404", reply{code: 404}, "HTTP 404"},
		{"over MaxBody", reply{body: oversized}, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readGoogleCloud(t, tt.rep, "Gemini")
			if err == nil {
				t.Fatalf("Read succeeded with %+v, want an error", res)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if res.Status != "" || res.Incidents != nil {
				t.Errorf("a failed read returned %+v, want the zero Result", res)
			}
		})
	}
}

func TestGoogleCloudContextCancelled(t *testing.T) {
	srv, hits := serveOneFeed(t, jsonAccept, reply{file: "gcloud-major.json"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := googleCloud{}.Read(ctx, srv.Client(), gemini(srv, "Gemini"))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if res.Status != "" || res.Incidents != nil {
		t.Errorf("a cancelled read returned %+v", res)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("feed requested %d times after cancellation", n)
	}
}

// checkParsed checks what any parse that succeeded must satisfy.
func checkParsed(t *testing.T, res Result, svc snapshot.Service) {
	t.Helper()
	if !res.Status.Valid() {
		t.Fatalf("invalid status %q", res.Status)
	}
	seen := map[string]bool{}
	for _, inc := range res.Incidents {
		if !strings.HasPrefix(inc.ID, svc.Slug+"-") || len(inc.ID) == len(svc.Slug)+1 || seen[inc.ID] {
			t.Fatalf("bad or duplicate id %q", inc.ID)
		}
		seen[inc.ID] = true
		if !inc.Severity.Valid() || inc.Service != svc.Slug || inc.Source != snapshot.SourceOfficial || inc.Headline == "" {
			t.Fatalf("bad incident %+v", inc)
		}
		if inc.StartedAt.IsZero() || inc.StartedAt.Location() != time.UTC || inc.UpdatedAt.Location() != time.UTC {
			t.Fatalf("bad times in %+v", inc)
		}
		if inc.EndedAt != nil && inc.EndedAt.Location() != time.UTC {
			t.Fatalf("bad end in %+v", inc)
		}
	}
}

// addFixtures seeds a fuzz target with every testdata file whose name has
// the prefix.
func addFixtures(f *testing.F, prefix string) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", prefix+"*"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no %s fixtures: %v", prefix, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzGoogleCloud(f *testing.F) {
	addFixtures(f, "gcloud-")
	f.Add([]byte(`null`))
	f.Add([]byte(`[{"id":"a","begin":"2025-06-03T10:00:00Z","end":"","affected_products":[{"title":"Gemini"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, filter := range [][]string{{"Gemini"}, nil} {
			svc := snapshot.Service{Slug: "google-gemini", Feed: snapshot.Feed{Format: snapshot.FormatGoogleCloud, Filter: filter}}
			res, err := parseGoogleCloud(data, svc)
			if err != nil {
				if res.Status != "" || res.Incidents != nil {
					t.Fatalf("error %v with a non-zero Result %+v", err, res)
				}
				continue
			}
			checkParsed(t, res, svc)
		}
	})
}
