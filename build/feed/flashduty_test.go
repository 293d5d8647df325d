package feed

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// fdFixture reads a file from testdata.
func fdFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fdPage is one scripted answer of a fake status page: a status code (0 is
// 200), a content type and a body.
type fdPage struct {
	code  int
	ctype string
	body  []byte
}

// fdServe serves page at "/" to requests that ask for accept (406 to any
// other), and redirects "/redirect" to "/". It returns the page's URL.
func fdServe(t *testing.T, accept string, page fdPage) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Accept") != accept:
			http.Error(w, "want Accept: "+accept, http.StatusNotAcceptable)
		case r.URL.Path == "/redirect":
			http.Redirect(w, r, "/cdn-cgi/challenge", http.StatusFound)
		default:
			w.Header().Set("Content-Type", page.ctype)
			w.WriteHeader(max(page.code, http.StatusOK))
			w.Write(page.body)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func deepseek(url string) snapshot.Service {
	return snapshot.Service{Slug: "deepseek", Name: "DeepSeek", StatusPage: "https://status.deepseek.com",
		Feed: snapshot.Feed{Format: snapshot.FormatFlashduty, URL: url}}
}

func fdRead(t *testing.T, page fdPage, path string) (Result, error) {
	t.Helper()
	url := fdServe(t, "application/json", page) + strings.TrimPrefix(path, "/")
	return flashduty{}.Read(context.Background(), &http.Client{Timeout: 10 * time.Second}, deepseek(url))
}

func fdJSON(t *testing.T, file string) fdPage {
	return fdPage{ctype: "application/json; charset=utf-8", body: fdFixture(t, file)}
}

func TestFlashdutyStatus(t *testing.T) {
	tests := []struct {
		file      string
		want      snapshot.Status
		incidents []string // ids, newest first
	}{
		{"flashduty-operational.json", snapshot.Operational, nil},
		{"flashduty-degraded.json", snapshot.Degraded, []string{"deepseek-90817263"}},
		{"flashduty-partial.json", snapshot.PartialOutage, []string{"deepseek-inc-20260601-01"}},
		{"flashduty-major.json", snapshot.MajorOutage, []string{"deepseek-90817300"}},
		{"flashduty-maintenance.json", snapshot.Maintenance, nil}, // a maintenance is not an incident
		{"flashduty-abnormal.json", snapshot.Degraded, nil},
		{"flashduty-component-worse.json", snapshot.PartialOutage, nil},
		{"flashduty-incidents.json", snapshot.Operational, []string{"deepseek-1007", "deepseek-1002", "deepseek-1001"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := fdRead(t, fdJSON(t, tt.file), "/")
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if res.Status != tt.want {
				t.Errorf("Status = %q, want %q", res.Status, tt.want)
			}
			var ids []string
			for _, inc := range res.Incidents {
				ids = append(ids, inc.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.incidents, ",") {
				t.Errorf("incidents = %v, want %v", ids, tt.incidents)
			}
		})
	}
}

func TestFlashdutyIncidents(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ptr := func(v time.Time) *time.Time { return &v }
	inc := func(id, headline string, sev snapshot.Severity, started time.Time, ended *time.Time, status string, updated time.Time) snapshot.Incident {
		return snapshot.Incident{ID: "deepseek-" + id, Service: "deepseek", Headline: headline, Severity: sev,
			StartedAt: started, EndedAt: ended, Status: status, Source: snapshot.SourceOfficial,
			URL: "https://status.deepseek.com", UpdatedAt: updated}
	}
	tests := []struct {
		file string
		want []snapshot.Incident
	}{
		{"flashduty-incidents.json", []snapshot.Incident{
			inc("1007", "Ongoing, end_time zero", snapshot.Major, at("2026-06-01T05:00:00Z"), nil, "monitoring", at("2026-06-01T05:00:00Z")),
			inc("1002", "Login failures", snapshot.Critical, at("2026-05-31T10:00:00Z"), ptr(at("2026-05-31T11:30:00Z")), "resolved", at("2026-05-31T11:30:00Z")),
			inc("1001", "API latency", snapshot.Minor, at("2026-05-31T04:00:00Z"), ptr(at("2026-05-31T05:00:00Z")), "resolved", at("2026-05-31T05:00:00Z")),
		}},
		{"flashduty-degraded.json", []snapshot.Incident{ // milliseconds
			inc("90817263", "Slow responses on web chat", snapshot.Major, at("2026-06-01T07:50:00Z"), nil, "investigating", at("2026-06-01T07:50:00Z")),
		}},
		{"flashduty-partial.json", []snapshot.Incident{ // RFC 3339 with an offset, returned in UTC
			inc("inc-20260601-01", "Elevated API error rates", snapshot.Major, at("2026-06-01T00:10:00Z"), nil, "identified", at("2026-06-01T00:40:00Z")),
		}},
		{"flashduty-major.json", []snapshot.Incident{ // created_at in seconds, "name" for the title
			inc("90817300", "DeepSeek services unavailable", snapshot.Critical, at("2026-06-01T08:03:20Z"), nil, "investigating", at("2026-06-01T08:03:20Z")),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := parseFlashduty(fdFixture(t, tt.file), deepseek("https://status.deepseek.com/"))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Incidents) != len(tt.want) {
				t.Fatalf("got %d incidents %+v, want %d", len(res.Incidents), res.Incidents, len(tt.want))
			}
			for i, got := range res.Incidents {
				want := tt.want[i]
				if got.ID != want.ID || got.Headline != want.Headline || got.Severity != want.Severity ||
					!got.StartedAt.Equal(want.StartedAt) || got.StartedAt.Location() != time.UTC ||
					(got.EndedAt == nil) != (want.EndedAt == nil) || got.EndedAt != nil && !got.EndedAt.Equal(*want.EndedAt) ||
					got.Status != want.Status || got.Source != want.Source || got.URL != want.URL ||
					got.Service != want.Service || !got.UpdatedAt.Equal(want.UpdatedAt) {
					t.Errorf("incident %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
}

func TestFlashdutyErrors(t *testing.T) {
	challenge := fdFixture(t, "flashduty-challenge.html")
	html := "text/html; charset=UTF-8"
	oversized := append(bytes.Repeat([]byte(" "), MaxBody), fdFixture(t, "flashduty-operational.json")...)
	tests := []struct {
		name string
		path string
		page fdPage
		want string // in the error message
	}{
		{"403 challenge", "/", fdPage{403, html, challenge}, "feed refused non-browser client"},
		{"429", "/", fdPage{429, "application/json", []byte(`{"error":"rate limited"}`)}, "feed refused non-browser client"},
		{"503 challenge", "/", fdPage{503, html, challenge}, "feed refused non-browser client"},
		{"200 challenge page", "/", fdPage{200, html, challenge}, "feed refused non-browser client"},
		{"challenge mislabelled as JSON", "/", fdPage{200, "application/json", challenge}, "feed refused non-browser client"},
		{"redirect to a 403 challenge", "/redirect", fdPage{403, html, challenge}, "feed refused non-browser client"},
		{"redirect to a 200 challenge", "/redirect", fdPage{200, html, challenge}, "feed refused non-browser client"},
		{"unknown fields only", "/", fdJSON(t, "flashduty-unrecognised.json"), "unrecognised document"},
		{"error envelope", "/", fdJSON(t, "flashduty-error-envelope.json"), "unrecognised document"},
		{"unknown overall status", "/", fdJSON(t, "flashduty-unknown-status.json"), `unknown status "sunny"`},
		{"no known status", "/", fdJSON(t, "flashduty-no-status.json"), "unrecognised document: no known status"},
		{"malformed JSON", "/", fdJSON(t, "flashduty-malformed.json"), "unrecognised document"},
		{"truncated JSON", "/", fdJSON(t, "flashduty-truncated.json"), "unexpected end of JSON"},
		{"components is a string", "/", fdJSON(t, "flashduty-wrong-type.json"), "cannot unmarshal string"},
		{"status is a number", "/", fdJSON(t, "flashduty-wrong-type-status.json"), "cannot unmarshal number"},
		{"an array", "/", fdPage{body: []byte(`[{"status":"operational"}]`)}, "unrecognised document"},
		{"null", "/", fdPage{body: []byte(`null`)}, "unrecognised document"},
		{"a string", "/", fdPage{body: []byte(`"blocked"`)}, "unrecognised document"},
		{"empty object", "/", fdPage{body: []byte(`{}`)}, "unrecognised document"},
		{"known fields all null", "/", fdPage{body: []byte(`{"data":{"status":null,"components":null,"incidents":null}}`)}, "unrecognised document"},
		{"empty body", "/", fdPage{body: []byte{}}, "unrecognised document"},
		{"HTTP 500", "/", fdPage{500, "application/json", []byte(`{"error":"internal"}`)}, "HTTP 500"},
		{"HTTP 404", "/", fdPage{404, html, []byte("<h1>Not found</h1>")}, "HTTP 404"},
		{"over MaxBody", "/", fdPage{200, "application/json", oversized}, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := fdRead(t, tt.page, tt.path)
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

func TestFlashdutyTime(t *testing.T) {
	want := time.Date(2026, 6, 1, 7, 50, 0, 0, time.UTC)
	tests := []struct {
		raw    string
		want   time.Time
		wantOK bool
	}{
		{"", time.Time{}, true},
		{"null", time.Time{}, true},
		{`""`, time.Time{}, true},
		{"0", time.Time{}, true},
		{"1780300200", want, true},
		{"1780300200000", want, true},
		{"1780300200.5", want.Add(500 * time.Millisecond), true},
		{`"2026-06-01T15:50:00+08:00"`, want, true},
		{`"2026-06-01T07:50:00.000Z"`, want, true},
		{`"2026-06-01 07:50:00"`, time.Time{}, false},
		{`"1780300200"`, time.Time{}, false},
		{"-1", time.Time{}, false},
		{"1e20", time.Time{}, false},
		{"true", time.Time{}, false},
		{`{"seconds":1780300200}`, time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := fdTime([]byte(tt.raw))
		if ok != tt.wantOK || !got.Equal(tt.want) {
			t.Errorf("fdTime(%s) = %v, %v; want %v, %v", tt.raw, got, ok, tt.want, tt.wantOK)
		}
	}
}

func FuzzFlashduty(f *testing.F) {
	files, _ := filepath.Glob("testdata/flashduty-*")
	for _, name := range files {
		f.Add(fdFixture(f, filepath.Base(name)))
	}
	f.Add([]byte(`{"data":{"status":"operational","incidents":[{"id":1,"start_time":1e13,"end_time":"x"}]}}`))
	svc := deepseek("https://status.deepseek.com/")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := parseFlashduty(data, svc)
		if err != nil {
			if res.Status != "" || res.Incidents != nil {
				t.Fatalf("error %v with a non-zero result %+v", err, res)
			}
			return
		}
		if !res.Status.Valid() || res.Status == snapshot.Unknown {
			t.Fatalf("status %q", res.Status)
		}
		for _, inc := range res.Incidents {
			if !inc.Severity.Valid() || !strings.HasPrefix(inc.ID, "deepseek-") || inc.StartedAt.IsZero() ||
				inc.Source != snapshot.SourceOfficial || inc.UpdatedAt.IsZero() {
				t.Fatalf("bad incident %+v", inc)
			}
		}
	})
}
