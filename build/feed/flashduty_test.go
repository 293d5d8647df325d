package feed

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

func deepseek(url string) catalog.Service {
	return catalog.Service{Slug: "deepseek", Name: "DeepSeek", StatusPage: "https://status.deepseek.com",
		Feed: catalog.Feed{Format: catalog.FormatFlashduty, URL: url}}
}

// fdRead serves rep at "/" and reads the feed at path: "/", or "/redirect",
// which redirects to rep at "/cdn-cgi/challenge".
func fdRead(t *testing.T, rep reply, path string) (Result, error) {
	t.Helper()
	srv, _ := serve(t, "application/json", map[string]reply{
		"/":                  rep,
		"/redirect":          {redirect: "/cdn-cgi/challenge"},
		"/cdn-cgi/challenge": rep,
	})
	return read(t, flashduty{}, deepseek(srv.URL+path))
}

func TestFlashdutyStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		want      api.Status
		incidents []string // ids, newest first
	}{
		{"flashduty-operational.json", api.Operational, nil},
		{"flashduty-degraded.json", api.Degraded, []string{"deepseek-90817263"}},
		{"flashduty-partial.json", api.PartialOutage, []string{"deepseek-inc-20260601-01"}},
		{"flashduty-major.json", api.MajorOutage, []string{"deepseek-90817300"}},
		{"flashduty-maintenance.json", api.Maintenance, nil}, // a maintenance is not an incident
		{"flashduty-abnormal.json", api.Degraded, nil},
		{"flashduty-component-worse.json", api.PartialOutage, nil},
		{"flashduty-incidents.json", api.Operational, []string{"deepseek-1007", "deepseek-1002", "deepseek-1001"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := fdRead(t, reply{file: tt.file}, "/")
			checkStatus(t, res, err, tt.want)
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
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ptr := func(v time.Time) *time.Time { return &v }
	inc := func(id, headline string, sev api.Severity, started time.Time, ended *time.Time, status string, updated time.Time) api.Incident {
		return api.Incident{ID: "deepseek-" + id, Service: "deepseek", Headline: headline, Severity: sev,
			StartedAt: started, EndedAt: ended, Status: status, Source: api.SourceOfficial,
			URL: "https://status.deepseek.com", UpdatedAt: updated}
	}
	tests := []struct {
		file string
		want []api.Incident
	}{
		{"flashduty-incidents.json", []api.Incident{
			inc("1007", "Ongoing, end_time zero", api.Major, at("2026-06-01T05:00:00Z"), nil, "monitoring", at("2026-06-01T05:00:00Z")),
			inc("1002", "Login failures", api.Critical, at("2026-05-31T10:00:00Z"), ptr(at("2026-05-31T11:30:00Z")), "resolved", at("2026-05-31T11:30:00Z")),
			inc("1001", "API latency", api.Minor, at("2026-05-31T04:00:00Z"), ptr(at("2026-05-31T05:00:00Z")), "resolved", at("2026-05-31T05:00:00Z")),
		}},
		{"flashduty-degraded.json", []api.Incident{ // milliseconds
			inc("90817263", "Slow responses on web chat", api.Major, at("2026-06-01T07:50:00Z"), nil, "investigating", at("2026-06-01T07:50:00Z")),
		}},
		{"flashduty-partial.json", []api.Incident{ // RFC 3339 with an offset, returned in UTC
			inc("inc-20260601-01", "Elevated API error rates", api.Major, at("2026-06-01T00:10:00Z"), nil, "identified", at("2026-06-01T00:40:00Z")),
		}},
		{"flashduty-major.json", []api.Incident{ // created_at in seconds, "name" for the title
			inc("90817300", "DeepSeek services unavailable", api.Critical, at("2026-06-01T08:03:20Z"), nil, "investigating", at("2026-06-01T08:03:20Z")),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := parseFlashduty(fixture(t, tt.file), Request{Service: deepseek("https://status.deepseek.com/")})
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
	t.Parallel()
	const refused = "feed refused non-browser client"
	challenge := "flashduty-challenge.html"
	cases := []errorCase{
		{"403 challenge", reply{code: 403, file: challenge}, refused},
		{"429", reply{code: 429, body: []byte(`{"error":"rate limited"}`)}, refused},
		{"503 challenge", reply{code: 503, file: challenge}, refused},
		{"200 challenge page", reply{file: challenge}, refused},
		{"challenge mislabelled as JSON", reply{file: challenge, ctype: "application/json"}, refused},
		{"unknown fields only", reply{file: "flashduty-unrecognised.json"}, "unrecognised document"},
		{"error envelope", reply{file: "flashduty-error-envelope.json"}, "unrecognised document"},
		{"unknown overall status", reply{file: "flashduty-unknown-status.json"}, `unknown status "sunny"`},
		{"no known status", reply{file: "flashduty-no-status.json"}, "no component in scope has a status we know"},
		{"malformed JSON", reply{file: "flashduty-malformed.json"}, "unrecognised document"},
		{"truncated JSON", reply{file: "flashduty-truncated.json"}, "unexpected end of JSON"},
		{"components is a string", reply{file: "flashduty-wrong-type.json"}, "cannot unmarshal string"},
		{"status is a number", reply{file: "flashduty-wrong-type-status.json"}, "cannot unmarshal number"},
		{"an array", reply{body: []byte(`[{"status":"operational"}]`)}, "unrecognised document"},
		{"null", reply{body: []byte(`null`)}, "unrecognised document"},
		{"a string", reply{body: []byte(`"blocked"`)}, "unrecognised document"},
		{"empty object", reply{body: []byte(`{}`)}, "unrecognised document"},
		{"known fields all null", reply{body: []byte(`{"data":{"status":null,"components":null,"incidents":null}}`)}, "unrecognised document"},
		{"empty body", reply{body: []byte{}}, "unrecognised document"},
		{"HTTP 500", reply{code: 500, body: []byte(`{"error":"internal"}`)}, "HTTP 500"},
		{"HTTP 404", reply{code: 404, ctype: "text/html; charset=UTF-8", body: []byte("<h1>Not found</h1>")}, "HTTP 404"},
		{"over MaxBody", reply{body: oversized(fixture(t, "flashduty-operational.json"))}, "larger than"},
	}
	checkErrors(t, cases, func(t *testing.T, rep reply) (Result, error) { return fdRead(t, rep, "/") })
	redirected := []errorCase{
		{"redirect to a 403 challenge", reply{code: 403, file: challenge}, refused},
		{"redirect to a 200 challenge", reply{file: challenge}, refused},
	}
	checkErrors(t, redirected, func(t *testing.T, rep reply) (Result, error) { return fdRead(t, rep, "/redirect") })
}

func TestFlashdutyTime(t *testing.T) {
	t.Parallel()
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
	addFixtures(f, "flashduty-*")
	f.Add([]byte(`{"data":{"status":"operational","incidents":[{"id":1,"start_time":1e13,"end_time":"x"}]}}`))
	// Ids that sanitise to nothing: the incident is left out, not given the id "".
	f.Add([]byte(`{"status":"operational","incidents":[{"id":"???","start_time":1780300200}]}`))
	f.Add([]byte(`{"page":{"components":[]},"active_changes":[{"change_id":" ","title":"t","start_at_seconds":1780300200}]}`))
	svc := deepseek("https://status.deepseek.com/")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := parseFlashduty(data, Request{Service: svc})
		if !checkParsed(t, svc, res, err) {
			return
		}
		// A document that declares no status is an error, not Unknown.
		if res.Status == api.Unknown {
			t.Fatalf("status %q", res.Status)
		}
		for _, inc := range res.Incidents {
			if inc.UpdatedAt.IsZero() {
				t.Fatalf("no update time in %+v", inc)
			}
		}
	})
}

// The real page's summary route, and the scope a reader would give DeepSeek:
// the catalog has none, as the service is probe-only (the page walls out
// plain clients), but anyone who can reach the page reads this document.
const fdSummaryPath = "/api/status-page/6410630422455/summary/active"

// fdRealSummary is the document the page serves at fdSummaryPath: the
// capture's "active" part (the page and its open changes) in the
// {"request_id", "data"} envelope the capture's author removed. change, if
// set, edits the capture's resolved changes (newest first) into open ones.
func fdRealSummary(t *testing.T, change func(items []jdoc) []any) []byte {
	t.Helper()
	doc := decodeDoc(t, realDoc(t, "flashduty-deepseek-20260724.json"))
	active := doc["active"].(jdoc)
	if change != nil {
		active["active_changes"] = change(list(t, doc["changeList"].(jdoc), "items"))
	}
	return encodeDoc(t, jdoc{"request_id": "0123456789abcdef", "data": active})
}

// reopen makes a resolved change open as of its first update: that
// update's status, no close time, and its components at the status the
// update gave them.
func reopen(t *testing.T, ch jdoc, status string) jdoc {
	t.Helper()
	first := list(t, ch, "updates")[0]
	ch["status"], ch["close_at_seconds"] = first["status"], 0
	ch["updates"] = []any{first}
	for _, c := range list(t, ch, "affected_components") {
		c["status"] = status
	}
	return ch
}

func TestFlashdutyRealSummary(t *testing.T) {
	t.Parallel()
	srv := func(t *testing.T, body []byte) catalog.Service {
		s, _ := serve(t, jsonAccept, map[string]reply{fdSummaryPath: {body: body}})
		svc := deepseek(s.URL + fdSummaryPath)
		svc.Feed.Scope = catalog.Scope{ComponentNames: []string{"API"}}
		return svc
	}
	apiNames := []string{"DeepSeek V4 Pro API服务(API Service)", "DeepSeek V4 Flash API服务(API Service)"}
	tests := []struct {
		name      string
		change    func(items []jdoc) []any
		status    api.Status
		incidents []api.Incident
	}{
		{name: "as served: no open change", status: api.Operational},
		{
			name:   "the API degraded",
			change: func(items []jdoc) []any { return []any{reopen(t, items[0], "degraded")} },
			status: api.Degraded,
			incidents: []api.Incident{{ID: "deepseek-6750347231287", Service: "deepseek",
				Headline: "DeepSeek API 性能下降（DeepSeek API Degraded Performance）", Severity: api.Minor,
				StartedAt: *ts(t, "2026-07-24T06:30:38Z"), Status: "identified", Source: api.SourceOfficial,
				URL: "https://status.deepseek.com", UpdatedAt: *ts(t, "2026-07-24T06:30:38Z")}},
		},
		{
			// Web search down: the chat components and the retired web chat
			// component are out of scope, and so is the change.
			name:   "the web chat in partial outage",
			change: func(items []jdoc) []any { return []any{reopen(t, items[1], "partial_outage")} },
			status: api.Operational,
		},
		{
			name: "maintenance of the API",
			change: func(items []jdoc) []any {
				ch := reopen(t, items[0], "under_maintenance")
				ch["type"], ch["title"] = "maintenance", "API maintenance"
				return []any{ch}
			},
			status: api.Maintenance,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := read(t, flashduty{}, srv(t, fdRealSummary(t, tt.change)))
			checkStatus(t, res, err, tt.status)
			var in []string
			groups := map[string]int{}
			for _, c := range res.Components {
				if c.InScope {
					in = append(in, c.Name)
				}
				groups[c.Group]++
			}
			if !slices.Equal(in, apiNames) {
				t.Errorf("in scope %q, want %q", in, apiNames)
			}
			if len(res.Components) != 7 || groups["对话服务(Chat Service)"] != 5 || res.Components[0].ID != "01KY4MVS8BM3F9JSYWACGQVG7A" {
				t.Errorf("components %+v, want the page's 7 by id, 5 in the chat section", res.Components)
			}
			checkIncidents(t, res.Incidents, tt.incidents)
		})
	}
}
