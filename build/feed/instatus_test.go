package feed

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

const instatusPath = "/summary.json"

func perplexity(srv *httptest.Server) catalog.Service {
	return catalog.Service{Slug: "perplexity", StatusPage: "https://status.perplexity.com",
		Feed: catalog.Feed{Format: catalog.FormatInstatus, URL: srv.URL + instatusPath}}
}

func readInstatus(t *testing.T, rep reply) (Result, error) {
	t.Helper()
	srv, _ := serve(t, jsonAccept, map[string]reply{instatusPath: rep})
	return read(t, instatus{}, perplexity(srv))
}

func TestInstatusStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rep  reply
		want api.Status
	}{
		{"calm", reply{file: "instatus-calm.json"}, api.Operational},
		{"HASISSUES without incidents", reply{file: "instatus-degraded.json"}, api.Degraded},
		{"UP with a degraded-performance incident", reply{file: "instatus-degraded-performance.json"}, api.Degraded},
		{"HASISSUES with a partial outage", reply{file: "instatus-partial.json"}, api.PartialOutage},
		{"ONEMAJOROUTAGE", reply{file: "instatus-major.json"}, api.MajorOutage},
		{"HASISSUES with a major outage among others", reply{file: "instatus-incidents.json"}, api.MajorOutage},
		{"UNDERMAINTENANCE", reply{file: "instatus-maintenance.json"}, api.Maintenance},
		{"UP with a maintenance in progress", reply{file: "instatus-maintenance-lagging.json"}, api.Maintenance},
		{"a resolved major outage does not count", reply{file: "instatus-resolved.json"}, api.Operational},
		{"MAJOROUTAGE", reply{body: []byte(`{"page":{"status":"MAJOROUTAGE"}}`)}, api.MajorOutage},
		{"MANYMAJOROUTAGE", reply{body: []byte(`{"page":{"status":"MANYMAJOROUTAGE"}}`)}, api.MajorOutage},
		{"PARTIALOUTAGE", reply{body: []byte(`{"page":{"status":"PARTIALOUTAGE"}}`)}, api.PartialOutage},
		{"DEGRADEDPERFORMANCE", reply{body: []byte(`{"page":{"status":"DEGRADEDPERFORMANCE"}}`)}, api.Degraded},
		{"lower case", reply{body: []byte(`{"page":{"status":"underMaintenance"}}`)}, api.Maintenance},
		{"maintenance loses to an outage", reply{body: []byte(`{"page":{"status":"UNDERMAINTENANCE"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"IDENTIFIED","impact":"PARTIALOUTAGE"}]}`)}, api.PartialOutage},
		{"page status lags the incident", reply{body: []byte(`{"page":{"status":"UP"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"INVESTIGATING","impact":"MAJOROUTAGE"}]}`)}, api.MajorOutage},
		{"an OPERATIONAL-impact incident keeps HASISSUES degraded", reply{body: []byte(`{"page":{"status":"HASISSUES"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"MONITORING","impact":"OPERATIONAL"}]}`)}, api.Degraded},
		{"a maintenance not started yet does not count", reply{body: []byte(`{"page":{"status":"UP"},"activeMaintenances":[{"status":"NOTSTARTEDYET"}]}`)}, api.Operational},
		{"unknown page status, no incidents", reply{body: []byte(`{"page":{"status":"SOMETHINGNEW"},"activeIncidents":[]}`)}, api.Unknown},
		{"unknown page status with an incident", reply{body: []byte(`{"page":{"status":"SOMETHINGNEW"},"activeIncidents":[{"id":"a","started":"2025-11-18T10:00:00Z","status":"INVESTIGATING","impact":"DEGRADEDPERFORMANCE"}]}`)}, api.Degraded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readInstatus(t, tt.rep)
			checkStatus(t, res, err, tt.want)
		})
	}
}

func TestInstatusIncidents(t *testing.T) {
	t.Parallel()
	const (
		official = api.SourceOfficial
		page     = "https://status.perplexity.com"
	)
	tests := []struct {
		name string
		file string
		want []api.Incident
	}{
		{
			name: "both time formats, offsets to UTC, resolved and skipped incidents",
			file: "instatus-incidents.json",
			want: []api.Incident{
				// Date.toString() start, RFC 3339 update with milliseconds.
				{ID: "perplexity-cm3q4k1rf00f6l80f0t9e2j5w", Service: "perplexity", Headline: "Perplexity API is down", Severity: api.Critical,
					StartedAt: *ts(t, "2025-11-18T14:03:00Z"), Status: "investigating", Source: official,
					URL: page + "/incident/cm3q4k1rf00f6l80f0t9e2j5w", UpdatedAt: *ts(t, "2025-11-18T14:10:22.517Z")},
				// RFC 3339 with an offset.
				{ID: "perplexity-cm3q2a0bc00c3l80f1h7w5m2e", Service: "perplexity", Headline: "Some API requests fail with 502", Severity: api.Major,
					StartedAt: *ts(t, "2025-11-18T10:30:00Z"), Status: "identified", Source: official,
					URL: page + "/incident/cm3q2a0bc00c3l80f1h7w5m2e", UpdatedAt: *ts(t, "2025-11-18T11:52:31Z")},
				// Resolved: ended at its last update.
				{ID: "perplexity-cm3pz8r2t00a9l70g6w1q3x4v", Service: "perplexity", Headline: "Sonar API unavailable", Severity: api.Critical,
					StartedAt: *ts(t, "2025-11-17T22:05:00Z"), EndedAt: ts(t, "2025-11-17T23:18:47Z"), Status: "resolved", Source: official,
					URL: page + "/incident/cm3pz8r2t00a9l70g6w1q3x4v", UpdatedAt: *ts(t, "2025-11-17T23:18:47Z")},
				// Date.toString() in GMT-0500; no url, no updatedAt.
				{ID: "perplexity-cm3pw0e5g00a2l70g9y4s8k1d", Service: "perplexity", Headline: "Delayed citations in answers", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-17T14:45:10Z"), Status: "monitoring", Source: official,
					URL: page, UpdatedAt: *ts(t, "2025-11-17T14:45:10Z")},
				// Left out: no id, unreadable start, no start, unreadable update time.
			},
		},
		{
			name: "degraded performance is minor",
			file: "instatus-degraded-performance.json",
			want: []api.Incident{
				{ID: "perplexity-cm3q1v7xk00b2l80fz9d4r6ta", Service: "perplexity", Headline: "Slower responses from the Sonar API", Severity: api.Minor,
					StartedAt: *ts(t, "2025-11-18T09:12:00Z"), Status: "monitoring", Source: official,
					URL: page + "/incident/cm3q1v7xk00b2l80fz9d4r6ta", UpdatedAt: *ts(t, "2025-11-18T09:40:12Z")},
			},
		},
		{name: "calm", file: "instatus-calm.json"},
		{name: "maintenance is not an incident", file: "instatus-maintenance-lagging.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readInstatus(t, reply{file: tt.file})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			checkIncidents(t, res.Incidents, tt.want)
		})
	}
}

func TestInstatusTime(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	cases := append(jsonDocErrors(t, "instatus-incidents.json"),
		errorCase{"activeIncidents is a string", reply{file: "instatus-wrong-type.json"}, "cannot unmarshal string"},
		errorCase{"page is an array", reply{body: []byte(`{"page":[],"activeIncidents":[]}`)}, "cannot unmarshal array"},
		errorCase{"an incident id is a number", reply{body: []byte(`{"page":{"status":"UP"},"activeIncidents":[{"id":7}]}`)}, "cannot unmarshal number"},
		errorCase{"activeMaintenances is an object", reply{body: []byte(`{"page":{"status":"UP"},"activeMaintenances":{}}`)}, "cannot unmarshal object"},
		errorCase{"the top level is an array", reply{body: []byte(`[]`)}, "cannot unmarshal array"},
	)
	checkErrors(t, cases, readInstatus)
}

// A document without a page status proves nothing: an error. Incidents
// missing everything are skipped.
func TestInstatusEmptyDocuments(t *testing.T) {
	t.Parallel()
	checkProvesNothing(t, []string{
		`null`,
		`{}`,
		`{"page":null,"activeIncidents":null,"activeMaintenances":null}`,
		`{"page":{},"activeIncidents":[{},{"id":"x"},{"id":"y","impact":"NEWIMPACT","started":"2025-11-18T10:00:00Z"}],"activeMaintenances":[{}]}`,
	}, readInstatus)
	res, err := readInstatus(t, reply{body: []byte(`{"page":{"status":"UP"},"activeIncidents":[{},{"id":"x"},{"id":"y","impact":"NEWIMPACT","started":"2025-11-18T10:00:00Z"}],"activeMaintenances":[{}]}`)})
	if err != nil || res.Status != api.Operational {
		t.Fatalf("got %+v, %v; want operational", res, err)
	}
	if len(res.Incidents) != 1 || res.Incidents[0].ID != "perplexity-y" || res.Incidents[0].Severity != api.Minor {
		t.Errorf("Incidents = %+v, want only perplexity-y, minor", res.Incidents)
	}
}

func TestInstatusNilClient(t *testing.T) {
	t.Parallel()
	srv, _ := serve(t, jsonAccept, map[string]reply{instatusPath: {file: "instatus-calm.json"}})
	res, err := instatus{}.Read(context.Background(), Request{Client: nil, Service: perplexity(srv)})
	if err != nil || res.Status != api.Operational {
		t.Errorf("Read with a nil client = %+v, %v; want operational", res, err)
	}
}

func FuzzInstatus(f *testing.F) {
	addFixtures(f, "instatus-*")
	f.Add([]byte(`{"page":{"status":"HASISSUES"},"activeIncidents":[{"id":"a","started":"Tue Nov 18 2025 14:03:00 GMT+0000 (UTC)","status":"RESOLVED","impact":"MAJOROUTAGE"}]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"page":{"status":"HASISSUES"},"activeIncidents":[{"id":"<>","started":"Tue Nov 18 2025 14:03:00 GMT+0000 (UTC)"}]}`))
	svc := catalog.Service{Slug: "perplexity", StatusPage: "https://status.perplexity.com"}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := parseInstatus(data, Request{Service: svc})
		checkParsed(t, svc, res, err)
	})
}
