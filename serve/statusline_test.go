package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// TestStatusline: one line of text for the services asked, or every
// service with the ones not up named; bad input is a 400 naming q.
func TestStatusline(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tc := range []struct {
		query, want string
	}{
		{"?q=openai,cohere", "⚠️ OpenAI degraded · 🔴 Cohere major outage\n"},
		{"?q=" + "anthropic", "✅ Anthropic up\n"},
		{"?q=api.openai.com,%20Groq%20", "⚠️ OpenAI degraded · ✅ Groq up\n"},
		// renderTestSnapshot has every service operational but OpenAI and Cohere.
		{"", fmt.Sprintf("AI services: %d/%d up · ⚠️ OpenAI degraded · 🔴 Cohere major outage\n", len(ts.cat.Services)-2, len(ts.cat.Services))},
	} {
		resp := ts.do(t, http.MethodGet, snapshot.PathStatusline+tc.query, nil)
		got := string(body(t, resp))
		if resp.StatusCode != http.StatusOK || got != tc.want || resp.Header.Get("Content-Type") != snapshot.ContentText {
			t.Errorf("%s: %d %q (%s), want %q", tc.query, resp.StatusCode, got, resp.Header.Get("Content-Type"), tc.want)
		}
		if strings.Count(got, "\n") != 1 {
			t.Errorf("%s: %q is not one line", tc.query, got)
		}
	}
	for _, tc := range []struct{ query, detail string }{
		{"?q=", "q is empty"},
		{"?q=openai,,groq", "empty service name"},
		{"?q=opnai", "did you mean OpenAI?"},
		{"?q=openai,example.com", `"example.com" is not a service`},
		{"?q=" + strings.Repeat("groq,", 10) + "groq", "at most 10"},
	} {
		if p, ok := problemAt(t, ts, snapshot.PathStatusline+tc.query, http.StatusBadRequest); ok && (p.Param != "q" || !strings.Contains(p.Detail, tc.detail)) {
			t.Errorf("%s: problem %+v, want param q and %q", tc.query, p, tc.detail)
		}
	}
}

// TestCheckStack: q=a,b,c checks each service in the order asked and sums
// them up in the single answer's shape; a single service has no checks; more than ten
// services, an empty name or a caller's error with a stack is a 400.
func TestCheckStack(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	resp := ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=openai,cohere,anthropic", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("stack: %d %s", resp.StatusCode, body(t, resp))
	}
	var doc api.StackCheckDoc
	if err := json.Unmarshal(body(t, resp), &doc); err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, c := range doc.Checks {
		slugs = append(slugs, c.Service.Slug)
	}
	want := api.Verdict{Level: "down", Emoji: "🔴", Headline: "Cohere API is down (major outage); OpenAI API is up but degraded; 1 of 3 up"}
	if v := doc.Verdict; v.Level != want.Level || v.Emoji != want.Emoji || v.Headline != want.Headline || v.Action != "" ||
		strings.Join(slugs, ",") != "openai,cohere,anthropic" || doc.Query != "openai,cohere,anthropic" ||
		!doc.Tracked || doc.Service != nil || doc.Status != nil {
		t.Errorf("stack %+v of %v, want %+v of openai,cohere,anthropic, tracked, no service", doc, slugs, want)
	}

	resp = ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=groq,anthropic", nil)
	if err := json.Unmarshal(body(t, resp), &doc); err != nil || doc.Verdict.Level != "up" || doc.Verdict.Headline != "All 2 services are up" {
		t.Errorf("all up: %+v %v", doc.Verdict, err)
	}
	resp = ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=groq,example.com", nil)
	if err := json.Unmarshal(body(t, resp), &doc); err != nil || doc.Tracked || doc.Verdict.Level != "untracked" {
		t.Errorf("one untracked: tracked %v, %+v %v", doc.Tracked, doc.Verdict, err)
	}

	// One service: the single answer, unchanged.
	resp = ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=openai", nil)
	var single map[string]any
	if err := json.Unmarshal(body(t, resp), &single); err != nil || single["verdict"] == nil || single["checks"] != nil || single["service"] == nil {
		t.Errorf("single: %v %v", single, err)
	}

	for _, tc := range []struct{ query, param string }{
		{"?q=" + strings.Repeat("groq,", 10) + "groq", "q"},
		{"?q=openai,", "q"},
		{"?q=openai,groq&error=500", "error"},
		{"?q=openai,groq&code=overloaded_error", "code"},
		{"?q=openai,groq&retryAfter=5", "retryAfter"},
	} {
		if p, ok := problemAt(t, ts, snapshot.PathCheck+tc.query, http.StatusBadRequest); ok && p.Param != tc.param {
			t.Errorf("%s: problem %+v, want param %s", tc.query, p, tc.param)
		}
	}
}

// TestOtherLanguagesServed: the façade, JSON Feeds, calendars and metrics
// are served at their paths with their types, /metrics included.
func TestOtherLanguagesServed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tc := range []struct{ path, file, contentType string }{
		{"/p/openai/api/v2/summary.json", "p/openai/api/v2/summary.json", snapshot.ContentJSON},
		{"/p/cohere/api/v2/incidents/unresolved.json", "p/cohere/api/v2/incidents/unresolved.json", snapshot.ContentJSON},
		{"/incidents.feed.json", "incidents.feed.json", snapshot.ContentJSONFeed},
		{"/services/openai.feed.json", "services/openai.feed.json", snapshot.ContentJSONFeed},
		{"/maintenance.ics", "maintenance.ics", snapshot.ContentCalendar},
		{"/services/openai.ics", "services/openai.ics", snapshot.ContentCalendar},
		{snapshot.PathMetrics, snapshot.FileMetrics, snapshot.ContentMetrics},
		{"/" + snapshot.FileMetrics, snapshot.FileMetrics, snapshot.ContentMetrics},
	} {
		want, err := os.ReadFile(filepath.Join(ts.dir, filepath.FromSlash(tc.file)))
		if err != nil {
			t.Fatal(err)
		}
		resp := ts.do(t, http.MethodGet, tc.path, nil)
		if got := body(t, resp); resp.StatusCode != http.StatusOK || string(got) != string(want) || resp.Header.Get("Content-Type") != tc.contentType {
			t.Errorf("%s: %d %s, %d bytes; want %s, the file's %d bytes", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), len(got), tc.contentType, len(want))
		}
	}
	var summary struct {
		Status struct{ Indicator string } `json:"status"`
	}
	resp := ts.do(t, http.MethodGet, "/p/openai/api/v2/summary.json", nil)
	if err := json.Unmarshal(body(t, resp), &summary); err != nil || summary.Status.Indicator != "minor" {
		t.Errorf("openai (degraded): indicator %q %v, want minor", summary.Status.Indicator, err)
	}
}
