package serve

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/snapshot"
)

// The fuzz targets below cover every parser of outside input in the server.
// Their seeds (f.Add and testdata/fuzz/<name>/) run with every plain
// `go test`; .ci/fuzz.sh fuzzes each one for a minute, every night.

// FuzzCheckQuery feeds arbitrary q values to the whole /check handler:
// never a 5xx, always valid JSON, 400 for an empty, invalid UTF-8 or
// over-long q or a stack (a q with commas) that check.SplitStack refuses,
// and otherwise a 200 that echoes q and names only a tracked service.
// (check.FuzzMatch fuzzes the matcher alone.)
func FuzzCheckQuery(f *testing.F) {
	for _, q := range []string{
		"openai", "https://api.openai.com/v1/chat/completions", "opneai.com", "http://127.0.0.1:9/",
		"\xff\xfe", strings.Repeat("a", 256), strings.Repeat("a", 257), "",
		",", "openai,,groq", "openai, groq", strings.Repeat("a,", 11) + "a",
	} {
		f.Add(q)
	}
	ts := newTestServer(f, 0)
	tracked := map[string]bool{}
	for _, svc := range ts.cat.Services {
		tracked[svc.Slug] = true
	}
	f.Fuzz(func(t *testing.T, q string) {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/check", nil)
		req.URL.RawQuery = "q=" + url.QueryEscape(q)
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		data := rec.Body.Bytes()
		if !json.Valid(data) {
			t.Fatalf("q=%q: status %d, body is not JSON: %q", q, rec.Code, data)
		}
		_, _, stackErr := check.SplitStack(q)
		valid := q != "" && len(q) <= check.MaxQuery && utf8.ValidString(q) && stackErr == nil
		if !valid {
			if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Type") != snapshot.ContentProblem {
				t.Fatalf("q=%q (%d bytes): status %d %s, want a 400 problem", q, len(q), rec.Code, rec.Header().Get("Content-Type"))
			}
			return
		}
		if rec.Code != http.StatusOK {
			t.Fatalf("q=%q: status %d, want 200: %s", q, rec.Code, data)
		}
		var doc api.StackCheckDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("q=%q: %v", q, err)
		}
		if doc.Query != q {
			t.Fatalf("q=%q: query %q", q, doc.Query)
		}
		checks := []api.CheckDoc{doc.CheckDoc}
		if names, stack, _ := check.SplitStack(q); stack {
			// A stack answers for no one service: each of its checks does.
			if doc.Service != nil || doc.Status != nil || len(doc.Checks) != len(names) {
				t.Fatalf("q=%q: a stack of %d answered with service %+v and %d checks", q, len(names), doc.Service, len(doc.Checks))
			}
			checks = doc.Checks
		}
		for _, c := range checks {
			if c.Tracked && (c.Service == nil || !tracked[c.Service.Slug]) {
				t.Fatalf("q=%q: tracked %v as %+v", q, c.Tracked, c.Service)
			}
			if !c.Tracked && (c.Service != nil || c.Status != nil || c.LatencyMs != nil) {
				t.Fatalf("q=%q: untracked answer carries service data: %s", q, data)
			}
		}
	})
}

// FuzzIncidentQuery sends arbitrary raw query strings to /incidents: the
// answer is a 200 list that honours its own window, or a 400 problem.
func FuzzIncidentQuery(f *testing.F) {
	for _, raw := range []string{
		"", "since=2026-10-31", "since=2026-10-31T13:00:00%2B01:00", "severity=major&service=openai&limit=2",
		"limit=0", "limit=1001", "limit=-1", "limit=+5", "limit=1e3", "limit=99999999999999999999",
		"since=%zz", "a=b;c=d", "since=" + strings.Repeat("9", 300), strings.Repeat("a=b&", 600),
		"service=openai&service=groq", "since=0000-01-01", "since=9999-12-31T23:59:59Z",
		"since=2026-10-31T13:00:00-23:59", "severity", "service=%00", "since=%20%202026-09-01%20",
	} {
		f.Add(raw)
	}
	ts := newTestServer(f, 0)
	f.Fuzz(func(t *testing.T, raw string) {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/incidents", nil)
		req.URL.RawQuery = raw
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		data := rec.Body.Bytes()
		switch rec.Code {
		case http.StatusBadRequest:
			var p api.Problem
			if ct := rec.Header().Get("Content-Type"); ct != snapshot.ContentProblem {
				t.Fatalf("%q: 400 with Content-Type %q", raw, ct)
			}
			if err := json.Unmarshal(data, &p); err != nil || p.Status != 400 || p.Detail == "" {
				t.Fatalf("%q: bad problem %s (%v)", raw, data, err)
			}
			switch p.Param {
			case "", "since", "severity", "service", "limit":
			default:
				t.Fatalf("%q: problem names parameter %q", raw, p.Param)
			}
		case http.StatusOK:
			var list api.IncidentList
			if err := json.Unmarshal(data, &list); err != nil {
				t.Fatalf("%q: %v: %s", raw, err, data)
			}
			w := list.Window
			if w == nil || w.Limit < 1 || w.Limit > snapshot.MaxIncidentLimit || len(list.Incidents) > w.Limit {
				t.Fatalf("%q: window %+v with %d incidents", raw, w, len(list.Incidents))
			}
			for i, inc := range list.Incidents {
				if inc.StartedAt.Before(w.Since) || (i > 0 && inc.StartedAt.After(list.Incidents[i-1].StartedAt)) ||
					(list.Filters.Severity != nil && string(inc.Severity) != *list.Filters.Severity) ||
					(list.Filters.Service != nil && inc.Service != *list.Filters.Service) {
					t.Fatalf("%q: incident %d (%s) breaks the filters %s / window %+v", raw, i, inc.ID, fmtFilters(list.Filters), w)
				}
			}
		default:
			t.Fatalf("%q: status %d, want 200 or 400: %s", raw, rec.Code, data)
		}
	})
}

// FuzzDecodeIncidents holds decodeIncidents, which reads incidents.json
// with history's fast parser, to decodeIncidentsJSON, encoding/json's
// reading: for any file, the same incidents with the same bytes to send,
// or an error from both.
func FuzzDecodeIncidents(f *testing.F) {
	for _, tt := range incidentFiles {
		f.Add([]byte(tt.file))
	}
	// More shapes the fast parser leaves to encoding/json. (Their bytes
	// are sent as the file has them, extra field and all, as before: a
	// build never writes them.)
	f.Add([]byte(`{"incidents":[` + strings.Replace(olderIncident, `{`, `{"extra":[1,{"a":2}],`, 1) + `]}`))
	f.Add([]byte(`{"incidents":[` + strings.Replace(olderIncident, `"id"`, `"ID"`, 1) + `]}`))
	f.Add([]byte(`{"timestamp":"2026-10-02T00:00:00Z" ,"incidents" : [ ` + newerIncident + ` ] , "x": {"y": [1e5, "\u00e9"]} }`))
	f.Add([]byte(`{"timestamp":01,"incidents":[]}`))
	f.Fuzz(func(t *testing.T, file []byte) {
		list, raws, err := decodeIncidents(file)
		wantList, wantRaws, wantErr := decodeIncidentsJSON(file)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		// An empty list and none say the same.
		if !slices.EqualFunc(list, wantList, func(a, b api.Incident) bool { return reflect.DeepEqual(a, b) }) {
			t.Fatalf("incidents\n %+v\nencoding/json's\n %+v", list, wantList)
		}
		if !slices.EqualFunc(raws, wantRaws, bytes.Equal) {
			t.Fatalf("bytes to send\n %q\nencoding/json's\n %q", raws, wantRaws)
		}
	})
}
