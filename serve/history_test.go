package serve

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// newHistoryTestServer serves a snapshot whose history holds daily rows for
// openai from 2025-10-01 to 2026-10-31 (each day 60 minutes of major
// outage in 1440 checked), generated on 2026-11-01: September 2026 is a
// closed month of the dataset, October still open (MonthCloseGrace).
func newHistoryTestServer(t *testing.T) *testServer {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// openai, whose history the tests read, and two others: the history's
	// rules are the same for every service, and each is rendered afresh.
	cat.Services = slices.DeleteFunc(cat.Services, func(svc catalog.Service) bool {
		return !slices.Contains([]string{"openai", "anthropic", "groq"}, svc.Slug)
	})
	h := history.New()
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		h.Track(svc.Slug).Record(genTime.Add(-time.Hour), api.Operational, nil)
		h.Track(svc.Slug).Record(genTime, api.Operational, nil)
		states[svc.Slug] = build.ServiceState{Status: api.Operational, Sources: api.Sources{
			Feed:  api.FeedSource{Format: catalog.FormatNone, State: api.FeedNone},
			Probe: api.ProbeSource{State: api.ProbeNone},
		}}
	}
	h.Days = history.DaySeries{}
	for d := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); d = d.Add(history.Day) {
		h.Days.Put(history.DayRow{Date: d.Format(time.DateOnly), Kind: history.KindService, Subject: "openai",
			Time: history.Bucket{Operational: 1380 * 60, Major: 60 * 60, Probes: 10, LatencyMs: 1500}, Incidents: 1, Major: 1})
	}
	files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, genTime)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "public")
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
	clock := newTestClock(genTime.Add(time.Minute))
	srv := New(Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: clock.Now})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	return &testServer{Server: srv, dir: dir, clock: clock, cat: cat}
}

func TestServiceHistory(t *testing.T) {
	t.Parallel()
	ts := newHistoryTestServer(t)
	tests := []struct {
		name, query       string
		status            int
		param             string
		days              int
		firstDay, lastDay string
	}{
		{"default: the 90 days up to today", "", 200, "", 89, "2026-08-04", "2026-10-31"},
		{"two days", "?from=2026-10-30&to=2026-10-31", 200, "", 2, "2026-10-30", "2026-10-31"},
		{"one day", "?from=2026-01-15&to=2026-01-15", 200, "", 1, "2026-01-15", "2026-01-15"},
		{"a year, the rows begin later", "?from=2025-01-01&to=2025-12-31", 200, "", 92, "2025-10-01", "2025-12-31"},
		{"to alone: the 90 days up to it", "?to=2025-10-10", 200, "", 10, "2025-10-01", "2025-10-10"},
		{"before any row", "?from=2020-01-01&to=2020-02-01", 200, "", 0, "", ""},
		{"not a date", "?from=2026-13-01", 400, "from", 0, "", ""},
		{"a date-time is not a date", "?to=2026-10-01T00:00:00Z", 400, "to", 0, "", ""},
		{"from after to", "?from=2026-10-02&to=2026-10-01", 400, "from", 0, "", ""},
		{"367 days", "?from=2025-01-01&to=2026-01-02", 400, "to", 0, "", ""},
		{"too long", "?from=" + strings.Repeat("2", 300), 400, "from", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, "/api/v1/services/openai/history"+tt.query, nil)
			data := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if tt.status != 200 {
				var p api.Problem
				if err := json.Unmarshal(data, &p); err != nil || p.Param != tt.param {
					t.Errorf("problem %s, want param %q (%v)", data, tt.param, err)
				}
				if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentProblem {
					t.Errorf("Content-Type %q", ct)
				}
				return
			}
			var doc api.HistoryDoc
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Days) != tt.days {
				t.Fatalf("%d days, want %d", len(doc.Days), tt.days)
			}
			if tt.days == 0 {
				return
			}
			if first, last := doc.Days[0].Date, doc.Days[len(doc.Days)-1].Date; first != tt.firstDay || last != tt.lastDay {
				t.Errorf("days %s..%s, want %s..%s", first, last, tt.firstDay, tt.lastDay)
			}
			d := doc.Days[0]
			// 60 minutes of major outage in 1440 observed: 95.833 % up.
			if d.Uptime == nil || *d.Uptime != 95.833 || d.Coverage != 1 || d.Minutes.MajorOutage != 60 ||
				d.Minutes.Downtime != 60 || d.Incidents.Major != 1 || d.Probes != 10 || d.LatencyMs == nil || *d.LatencyMs != 150 {
				t.Errorf("day %+v", d)
			}
		})
	}
	if d := ts.Store().Current().histories["openai"]; len(d.doc.Days) == 0 {
		t.Errorf("the server holds no days of openai: %+v", d.doc)
	}
	if resp := ts.do(t, http.MethodGet, "/api/v1/services/nope/history", nil); resp.StatusCode != 404 {
		t.Errorf("unknown slug: %d, want 404", resp.StatusCode)
	}
}

// TestServiceUptimeLongWindows: the service document's 90-day and 1-year
// windows come from the daily rows.
func TestServiceUptimeLongWindows(t *testing.T) {
	t.Parallel()
	ts := newHistoryTestServer(t)
	var doc api.ServiceDoc
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, "/api/v1/services/openai", nil)), &doc); err != nil {
		t.Fatal(err)
	}
	// The last 30 days hold only the two checks (an hour); the 60 days
	// before them, and the 335 days of the year, are the rows.
	if doc.Uptime.D90 == nil || *doc.Uptime.D90 >= 96 || *doc.Uptime.D90 < 95.8 {
		t.Errorf("90d uptime %v, want the rows' 95.8x", doc.Uptime.D90)
	}
	if c := doc.UptimeCoverage.D90; c < 0.66 || c > 0.67 {
		t.Errorf("90d coverage %v, want about 60/90", c)
	}
	if c := doc.UptimeCoverage.Y1; c < 0.91 || c > 0.92 {
		t.Errorf("1y coverage %v, want about 335/365", c)
	}
}

// TestDatasetCacheHeaders: a closed month's file is served as immutable,
// an open month's and the index with the usual short caching.
func TestDatasetCacheHeaders(t *testing.T) {
	t.Parallel()
	ts := newHistoryTestServer(t)
	for path, want := range map[string]string{
		"/datasets/uptime-2026-09.csv": snapshot.CacheImmutable,
		"/datasets/uptime-2026-10.csv": snapshot.CacheControl,
		"/datasets/index.json":         snapshot.CacheControl,
	} {
		resp := ts.do(t, http.MethodGet, path, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		if got := resp.Header.Values("Cache-Control"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: Cache-Control %q, want %q", path, got, want)
		}
	}
}

// TestDatasetBrokenFiles: a dataset index or a history file that cannot be
// read degrades that one thing — short caching, an empty history — and
// never fails the snapshot or panics.
func TestDatasetBrokenFiles(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, content string }{
		{"index with empty paths", snapshot.FileDatasets, `{"files":[{"path":"","closed":true},{"path":"x","closed":true}]}`},
		{"index not JSON", snapshot.FileDatasets, `{`},
		{"history out of order", snapshot.ServiceHistoryFile("openai"), `{"days":[{"date":"2026-10-02"},{"date":"2026-10-01"}]}`},
		{"history not JSON", snapshot.ServiceHistoryFile("openai"), `[`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newHistoryTestServer(t)
			if err := os.WriteFile(filepath.Join(ts.dir, filepath.FromSlash(tt.file)), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			snap, err := Load(ts.dir)
			if err != nil {
				t.Fatalf("the snapshot failed to load: %v", err)
			}
			ts.Store().set(snap)
			resp := ts.do(t, http.MethodGet, "/datasets/uptime-2026-09.csv", nil)
			if got := resp.Header.Get("Cache-Control"); tt.file == snapshot.FileDatasets && got != snapshot.CacheControl {
				t.Errorf("Cache-Control %q with a broken index", got)
			}
			resp = ts.do(t, http.MethodGet, "/api/v1/services/openai/history", nil)
			var doc api.HistoryDoc
			if err := json.Unmarshal(body(t, resp), &doc); resp.StatusCode != 200 || err != nil {
				t.Fatalf("history: %d %v", resp.StatusCode, err)
			}
			if tt.file != snapshot.FileDatasets && len(doc.Days) != 0 {
				t.Errorf("%d days from a broken history file", len(doc.Days))
			}
		})
	}
}
