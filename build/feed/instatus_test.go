package feed

import (
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

// This file also holds the helpers shared by the tests of the adapters that
// read a single document (Instatus, Better Stack, Checkly); the test server
// (feedServer, reply) and the incident comparison (checkIncidents, ts) are
// statuspage_test.go's.

const instatusPath = "/summary.json"

// serveSingleDoc serves rep at path and returns a service of the given format
// whose feed URL points at it.
func serveSingleDoc(t *testing.T, path string, rep reply, format snapshot.FeedFormat, slug, statusPage string, filter ...string) snapshot.Service {
	t.Helper()
	srv, _ := feedServer(t, map[string]reply{path: rep})
	return snapshot.Service{
		Slug:       slug,
		StatusPage: statusPage,
		Feed:       snapshot.Feed{Format: format, URL: srv.URL + path, Filter: filter},
	}
}

// readSingleDoc reads svc with a and a client that cannot hang the test.
func readSingleDoc(a Adapter, svc snapshot.Service) (Result, error) {
	return a.Read(context.Background(), &http.Client{Timeout: 10 * time.Second}, svc)
}

// singleDocErrorCase is one document that must make a read fail with an error
// that mentions want.
type singleDocErrorCase struct {
	name string
	rep  reply
	want string
}

// singleDocErrorCases are the failures every single-document adapter must
// report; good is a fixture the adapter reads without error, used to build
// an oversized but otherwise valid body. prefix names the adapter's own
// malformed, truncated and HTML fixtures.
func singleDocErrorCases(t *testing.T, prefix, good string) []singleDocErrorCase {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("testdata", good))
	if err != nil {
		t.Fatal(err)
	}
	// Leading whitespace keeps the document valid JSON, so size alone decides.
	oversized := append([]byte(strings.Repeat(" ", MaxBody)), doc...)
	return []singleDocErrorCase{
		{"malformed JSON", reply{file: prefix + "-malformed.json"}, "invalid character"},
		{"truncated JSON", reply{file: prefix + "-truncated.json"}, "unexpected end of JSON"},
		{"HTML instead of JSON", reply{file: "maintenance_page.html"}, `content type "text/html"`},
		{"HTML error page with status 200", reply{body: []byte("<html><body>Bad gateway</body></html>")}, "invalid character '<'"},
		{"empty body", reply{body: []byte{}}, "unexpected end of JSON"},
		{"a JSON string", reply{body: []byte(`"ok"`)}, "cannot unmarshal string"},
		{"a JSON number", reply{body: []byte(`42`)}, "cannot unmarshal number"},
		{"HTTP 500", reply{code: http.StatusInternalServerError, body: []byte(`{"error":"internal"}`)}, "HTTP 500"},
		{"HTTP 404", reply{code: http.StatusNotFound}, "HTTP 404"},
		{"HTTP 429", reply{code: http.StatusTooManyRequests}, "HTTP 429"},
		{"body over MaxBody", reply{body: oversized}, "larger than"},
	}
}

// checkSingleDocErrors reads every case with a and wants an error that mentions
// the case's text and the zero Result.
func checkSingleDocErrors(t *testing.T, a Adapter, format snapshot.FeedFormat, path string, cases []singleDocErrorCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readSingleDoc(a, serveSingleDoc(t, path, tt.rep, format, "svc", "https://status.example.com"))
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

// checkSingleDocCancelled checks that a cancelled context fails the read, both when
// it is cancelled before the request and while the server is answering.
func checkSingleDocCancelled(t *testing.T, a Adapter, format snapshot.FeedFormat, path, fixture string) {
	t.Helper()
	t.Run("cancelled before the read", func(t *testing.T) {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			http.ServeFile(w, r, filepath.Join("testdata", fixture))
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		svc := snapshot.Service{Slug: "svc", Feed: snapshot.Feed{Format: format, URL: srv.URL + path}}
		res, err := a.Read(ctx, srv.Client(), svc)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if res.Status != "" || res.Incidents != nil {
			t.Errorf("a cancelled read returned %+v", res)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("%d requests after cancellation", n)
		}
	})
	t.Run("cancelled during the read", func(t *testing.T) {
		started := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			select { // hang until the client gives up
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-started; cancel() }()
		svc := snapshot.Service{Slug: "svc", Feed: snapshot.Feed{Format: format, URL: srv.URL + path}}
		if _, err := a.Read(ctx, srv.Client(), svc); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// checkSingleDocParsed is the fuzz targets' check of what a parse function returned:
// an error with the zero Result, or a valid status and well-formed incidents.
func checkSingleDocParsed(t *testing.T, svc snapshot.Service, res Result, err error) {
	t.Helper()
	if err != nil {
		if res.Status != "" || res.Incidents != nil {
			t.Fatalf("error %v came with a non-zero Result %+v", err, res)
		}
		return
	}
	if !res.Status.Valid() {
		t.Fatalf("Status %q is not valid", res.Status)
	}
	for i, inc := range res.Incidents {
		switch {
		case !strings.HasPrefix(inc.ID, svc.Slug+"-") || inc.ID == svc.Slug+"-":
			t.Fatalf("incident %d: id %q is not %q plus an upstream id", i, inc.ID, svc.Slug+"-")
		case inc.Service != svc.Slug || inc.Source != snapshot.SourceOfficial:
			t.Fatalf("incident %d: service %q source %q", i, inc.Service, inc.Source)
		case !inc.Severity.Valid():
			t.Fatalf("incident %d: severity %q is not valid", i, inc.Severity)
		case inc.StartedAt.IsZero() || inc.StartedAt.Location() != time.UTC || inc.UpdatedAt.Location() != time.UTC:
			t.Fatalf("incident %d: times %v, %v are not set UTC times", i, inc.StartedAt, inc.UpdatedAt)
		case inc.EndedAt != nil && inc.EndedAt.Location() != time.UTC:
			t.Fatalf("incident %d: end %v is not UTC", i, inc.EndedAt)
		case i > 0 && inc.StartedAt.After(res.Incidents[i-1].StartedAt):
			t.Fatalf("incidents %d and %d are not newest first", i-1, i)
		}
	}
}

// addSingleDocFixtures seeds a fuzz corpus with every testdata file that starts with prefix.
func addSingleDocFixtures(f *testing.F, prefix string) {
	f.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", prefix+"*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no %s fixtures: %v", prefix, err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func TestInstatusStatus(t *testing.T) {
	tests := []struct {
		name string
		rep  reply
		want snapshot.Status
	}{
		{"calm", reply{file: "instatus-calm.json"}, snapshot.Operational},
		{"HASISSUES without incidents", reply{file: "instatus-degraded.json"}, snapshot.Degraded},
		{"UP with a degraded-performance incident", reply{file: "instatus-degraded-performance.json"}, snapshot.Degraded},
		{"HASISSUES with a partial outage", reply{file: "instatus-partial.json"}, snapshot.PartialOutage},
		{"ONEMAJOROUTAGE", reply{file: "instatus-major.json"}, snapshot.MajorOutage},
		{"HASISSUES with a major outage among others", reply{file: "instatus-incidents.json"}, snapshot.MajorOutage},
		{"UNDERMAINTENANCE", reply{file: "instatus-maintenance.json"}, snapshot.Maintenance},
		{"UP with a maintenance in progress", reply{file: "instatus-maintenance-lagging.json"}, snapshot.Maintenance},
		{"a resolved major outage does not count", reply{file: "instatus-resolved.json"}, snapshot.Operational},
		{"MAJOROUTAGE", reply{body: []byte(`{"page":{"status":"MAJOROUTAGE"}}`)}, snapshot.MajorOutage},
		{"MANYMAJOROUTAGE", reply{body: []byte(`{"page":{"status":"MANYMAJOROUTAGE"}}`)}, snapshot.MajorOutage},
		{"PARTIALOUTAGE", reply{body: []byte(`{"page":{"status":"PARTIALOUTAGE"}}`)}, snapshot.PartialOutage},
		{"DEGRADEDPERFORMANCE", reply{body: []byte(`{"page":{"status":"DEGRADEDPERFORMANCE"}}`)}, snapshot.Degraded},
		{"lower case", reply{body: []byte(`{"page":{"status":"underMaintenance"}}`)}, snapshot.Maintenance},
		{"maintenance loses to an outage", reply{body: []byte(`{"page":{"status":"UNDERMAINTENANCE"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"IDENTIFIED","impact":"PARTIALOUTAGE"}]}`)}, snapshot.PartialOutage},
		{"page status lags the incident", reply{body: []byte(`{"page":{"status":"UP"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"INVESTIGATING","impact":"MAJOROUTAGE"}]}`)}, snapshot.MajorOutage},
		{"an OPERATIONAL-impact incident keeps HASISSUES degraded", reply{body: []byte(`{"page":{"status":"HASISSUES"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"MONITORING","impact":"OPERATIONAL"}]}`)}, snapshot.Degraded},
		{"a maintenance not started yet does not count", reply{body: []byte(`{"page":{"status":"UP"},"activeMaintenances":[{"status":"NOTSTARTEDYET"}]}`)}, snapshot.Operational},
		{"unknown page status, no incidents", reply{body: []byte(`{"page":{"status":"SOMETHINGNEW"},"activeIncidents":[]}`)}, snapshot.Unknown},
		{"unknown page status with an incident", reply{body: []byte(`{"page":{"status":"SOMETHINGNEW"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"INVESTIGATING","impact":"DEGRADEDPERFORMANCE"}]}`)}, snapshot.Degraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readSingleDoc(instatus{}, serveSingleDoc(t, instatusPath, tt.rep, snapshot.FormatInstatus, "perplexity", "https://status.perplexity.com"))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != tt.want {
				t.Errorf("Status = %q, want %q", res.Status, tt.want)
			}
		})
	}
}

func TestInstatusIncidents(t *testing.T) {
	const (
		official = snapshot.SourceOfficial
		page     = "https://status.perplexity.com"
	)
	tests := []struct {
		name string
		file string
		want []snapshot.Incident
	}{
		{
			name: "both time formats, offsets to UTC, resolved and skipped incidents",
			file: "instatus-incidents.json",
			want: []snapshot.Incident{
				// Date.toString() start, RFC 3339 update with milliseconds.
				{ID: "perplexity-cm3q4k1rf00f6l80f0t9e2j5w", Service: "perplexity", Headline: "Perplexity API is down", Severity: snapshot.Critical,
					StartedAt: *ts(t, "2025-11-18T14:03:00Z"), Status: "investigating", Source: official,
					URL: page + "/incident/cm3q4k1rf00f6l80f0t9e2j5w", UpdatedAt: *ts(t, "2025-11-18T14:10:22.517Z")},
				// RFC 3339 with an offset.
				{ID: "perplexity-cm3q2a0bc00c3l80f1h7w5m2e", Service: "perplexity", Headline: "Some API requests fail with 502", Severity: snapshot.Major,
					StartedAt: *ts(t, "2025-11-18T10:30:00Z"), Status: "identified", Source: official,
					URL: page + "/incident/cm3q2a0bc00c3l80f1h7w5m2e", UpdatedAt: *ts(t, "2025-11-18T11:52:31Z")},
				// Resolved: ended at its last update.
				{ID: "perplexity-cm3pz8r2t00a9l70g6w1q3x4v", Service: "perplexity", Headline: "Sonar API unavailable", Severity: snapshot.Critical,
					StartedAt: *ts(t, "2025-11-17T22:05:00Z"), EndedAt: ts(t, "2025-11-17T23:18:47Z"), Status: "resolved", Source: official,
					URL: page + "/incident/cm3pz8r2t00a9l70g6w1q3x4v", UpdatedAt: *ts(t, "2025-11-17T23:18:47Z")},
				// Date.toString() in GMT-0500; no url, no updatedAt.
				{ID: "perplexity-cm3pw0e5g00a2l70g9y4s8k1d", Service: "perplexity", Headline: "Delayed citations in answers", Severity: snapshot.Minor,
					StartedAt: *ts(t, "2025-11-17T14:45:10Z"), Status: "monitoring", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-17T14:45:10Z")},
				// Left out: no id, unreadable start, no start, unreadable update time.
			},
		},
		{
			name: "degraded performance is minor",
			file: "instatus-degraded-performance.json",
			want: []snapshot.Incident{
				{ID: "perplexity-cm3q1v7xk00b2l80fz9d4r6ta", Service: "perplexity", Headline: "Slower responses from the Sonar API", Severity: snapshot.Minor,
					StartedAt: *ts(t, "2025-11-18T09:12:00Z"), Status: "monitoring", Source: official,
					URL: page + "/incident/cm3q1v7xk00b2l80fz9d4r6ta", UpdatedAt: *ts(t, "2025-11-18T09:40:12Z")},
			},
		},
		{name: "calm", file: "instatus-calm.json"},
		{name: "maintenance is not an incident", file: "instatus-maintenance-lagging.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readSingleDoc(instatus{}, serveSingleDoc(t, instatusPath, reply{file: tt.file}, snapshot.FormatInstatus, "perplexity", page))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, tt.want)
		})
	}
}

func TestInstatusTime(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339; "" for the zero time
		ok   bool
	}{
		{"", "", true},
		{"2025-11-18T14:03:00Z", "2025-11-18T14:03:00Z", true},
		{"2025-11-18T14:03:00.250+02:00", "2025-11-18T12:03:00.25Z", true},
		{"Tue Nov 18 2025 14:03:00 GMT+0000 (Coordinated Universal Time)", "2025-11-18T14:03:00Z", true},
		{"Tue Nov 18 2025 15:03:00 GMT+0100 (Central European Standard Time)", "2025-11-18T14:03:00Z", true},
		{"Mon Nov 17 2025 21:03:00 GMT-1700", "2025-11-18T14:03:00Z", true},
		{"Sun Nov 02 2025 01:30:00 GMT-0700 (Pacific Daylight Time)", "2025-11-02T08:30:00Z", true},
		{"  2025-11-18T14:03:00Z  ", "2025-11-18T14:03:00Z", true},
		{"Tue Nov 18 2025", "", false},
		{"Invalid Date", "", false},
		{"1763474580000", "", false},
		{"(Coordinated Universal Time)", "", false},
	}
	for _, tt := range tests {
		got, ok := parseInstatusTime(tt.in)
		if ok != tt.ok {
			t.Errorf("parseInstatusTime(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		switch {
		case tt.want == "" && !got.IsZero():
			t.Errorf("parseInstatusTime(%q) = %v, want the zero time", tt.in, got)
		case tt.want != "" && (!got.Equal(*ts(t, tt.want)) || got.Location() != time.UTC):
			t.Errorf("parseInstatusTime(%q) = %v, want %s in UTC", tt.in, got, tt.want)
		}
	}
}

func TestInstatusErrors(t *testing.T) {
	cases := append(singleDocErrorCases(t, "instatus", "instatus-incidents.json"),
		singleDocErrorCase{"activeIncidents is a string", reply{file: "instatus-wrong-type.json"}, "cannot unmarshal string"},
		singleDocErrorCase{"page is an array", reply{body: []byte(`{"page":[],"activeIncidents":[]}`)}, "cannot unmarshal array"},
		singleDocErrorCase{"an incident id is a number", reply{body: []byte(`{"page":{"status":"UP"},"activeIncidents":[{"id":7}]}`)}, "cannot unmarshal number"},
		singleDocErrorCase{"activeMaintenances is an object", reply{body: []byte(`{"page":{"status":"UP"},"activeMaintenances":{}}`)}, "cannot unmarshal object"},
		singleDocErrorCase{"the top level is an array", reply{body: []byte(`[]`)}, "cannot unmarshal array"},
	)
	checkSingleDocErrors(t, instatus{}, snapshot.FormatInstatus, instatusPath, cases)
	checkSingleDocCancelled(t, instatus{}, snapshot.FormatInstatus, instatusPath, "instatus-calm.json")
}

// Valid JSON that declares nothing is Unknown without incidents.
func TestInstatusEmptyDocuments(t *testing.T) {
	for _, body := range []string{
		`null`,
		`{}`,
		`{"page":null,"activeIncidents":null,"activeMaintenances":null}`,
		`{"page":{},"activeIncidents":[{},{"id":"x"},{"id":"y","impact":"NEWIMPACT","started":"2025-11-18T10:00:00Z"}],"activeMaintenances":[{}]}`,
	} {
		t.Run(body, func(t *testing.T) {
			res, err := readSingleDoc(instatus{}, serveSingleDoc(t, instatusPath, reply{body: []byte(body)}, snapshot.FormatInstatus, "svc", "https://status.example.com"))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != snapshot.Unknown {
				t.Errorf("Status = %q, want unknown", res.Status)
			}
			if strings.Contains(body, `"y"`) {
				if len(res.Incidents) != 1 || res.Incidents[0].ID != "svc-y" || res.Incidents[0].Severity != snapshot.Minor {
					t.Errorf("Incidents = %+v, want only svc-y, minor", res.Incidents)
				}
			} else if len(res.Incidents) != 0 {
				t.Errorf("Incidents = %+v, want none", res.Incidents)
			}
		})
	}
}

func TestInstatusNilClient(t *testing.T) {
	svc := serveSingleDoc(t, instatusPath, reply{file: "instatus-calm.json"}, snapshot.FormatInstatus, "perplexity", "https://status.perplexity.com")
	res, err := instatus{}.Read(context.Background(), nil, svc)
	if err != nil || res.Status != snapshot.Operational {
		t.Errorf("Read with a nil client = %+v, %v; want operational", res, err)
	}
}

func FuzzInstatus(f *testing.F) {
	addSingleDocFixtures(f, "instatus-")
	f.Add([]byte(`{"page":{"status":"HASISSUES"},"activeIncidents":[{"id":"a","started":"Tue Nov 18 2025 14:03:00 GMT+0000 (UTC)","status":"RESOLVED","impact":"MAJOROUTAGE"}]}`))
	f.Add([]byte(`null`))
	svc := snapshot.Service{Slug: "perplexity", StatusPage: "https://status.perplexity.com"}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := parseInstatus(data, svc)
		checkSingleDocParsed(t, svc, res, err)
	})
}
