package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

// TestStatusline: one line of text for the names asked, each matched as
// /check matches q and said as /check's verdict says it (the test
// snapshot has claude.ai and Claude Code in a major outage while the
// Anthropic API is up); without q, what is in trouble.
func TestStatusline(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tc := range []struct{ q, want string }{
		{"claude.ai", "🔴 claude.ai major outage"},
		{"claude code", "🔴 Claude Code major outage"},
		{"console.anthropic.com", "✅ Claude Console up"},
		{"anthropic", "✅ Anthropic API up"},
		{"claude", "✅ Anthropic API up"},
		{"api.openai.com", "⚠️ OpenAI API degraded"},
		// The snapshot has no word on ChatGPT.
		{"chatgpt", "❔ ChatGPT unknown"},
		{"cohere", "🔴 Cohere API major outage"},
		{" Groq ", "✅ Groq up"},
		// The model's own sources, not Anthropic's status.
		{"claude-sonnet-4.5", "🟠 Claude Sonnet 4.5 at Anthropic partial outage"},
	} {
		resp := ts.do(t, http.MethodGet, snapshot.PathStatusline+"?q="+urlQuery(tc.q), nil)
		got := string(body(t, resp))
		said := checkSays(t, checkDoc(t, ts, tc.q))
		if resp.StatusCode != http.StatusOK || got != tc.want+"\n" || got != said+"\n" || resp.Header.Get("Content-Type") != snapshot.ContentText {
			t.Errorf("%s: %d %q (%s), want %q; /check says %q", tc.q, resp.StatusCode, got, resp.Header.Get("Content-Type"), tc.want, said)
		}
	}

	// A stack is each of its names, and counts as many up as /check's.
	resp := ts.do(t, http.MethodGet, snapshot.PathStatusline+"?q=claude.ai,openai,groq", nil)
	got := string(body(t, resp))
	var stack api.StackCheckDoc
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=claude.ai,openai,groq", nil)), &stack); err != nil {
		t.Fatal(err)
	}
	if want := "🔴 claude.ai major outage · ⚠️ OpenAI API degraded · ✅ Groq up\n"; got != want ||
		!strings.HasSuffix(stack.Verdict.Headline, "; 1 of 3 up") || strings.Count(got, "✅") != 1 {
		t.Errorf("stack: %q, want %q; /check says %q", got, want, stack.Verdict.Headline)
	}

	// Without q: the services in trouble, worst first, and a count of those
	// with a surface of unknown status (xAI's and Perplexity's, which the
	// snapshot has not read), not every one of them.
	resp = ts.do(t, http.MethodGet, snapshot.PathStatusline, nil)
	want := "🔴 Anthropic: claude.ai major outage, Claude Code major outage · 🔴 Cohere: API major outage · ⚠️ OpenAI: API degraded · ❔ 2 unknown\n"
	if got := string(body(t, resp)); resp.StatusCode != http.StatusOK || got != want {
		t.Errorf("no q: %d %q, want %q", resp.StatusCode, got, want)
	}
}

// checkSays is the statusline item /check's single answer makes: the
// verdict's emoji, the subject its headline names and its status in a word.
func checkSays(t *testing.T, doc api.CheckDoc) string {
	t.Helper()
	h := doc.Verdict.Headline
	name, _, ok := strings.Cut(h, " is ")
	if doc.Status != nil && *doc.Status == api.Unknown {
		name, ok = strings.CutPrefix(h, "We can't tell whether ")
		name, _, _ = strings.Cut(name, " is up right now")
	}
	if !ok || doc.Status == nil {
		t.Fatalf("verdict %q names no subject", h)
	}
	word := map[api.Status]string{api.Operational: "up", api.Degraded: "degraded", api.PartialOutage: "partial outage",
		api.MajorOutage: "major outage", api.Maintenance: "maintenance", api.Unknown: "unknown"}[*doc.Status]
	return doc.Verdict.Emoji + " " + name + " " + word
}

// TestStatuslineRefusesInText: a refusal of the statusline (bad input, the
// rate limit, no snapshot yet) is one line of text/plain with its HTTP
// status, never a problem's JSON, which a prompt would print as it is; the
// other routes keep their problems.
func TestStatuslineRefusesInText(t *testing.T) {
	t.Parallel()
	ts, limited := newTestServer(t, 0), newTestServer(t, 1)
	for _, tc := range []struct {
		ts          *testServer
		query, says string
		status      int
	}{
		{ts, "?q=", "q is empty", http.StatusBadRequest},
		{ts, "?q=openai,,groq", "empty service name", http.StatusBadRequest},
		{ts, "?q=opnai", "did you mean OpenAI?", http.StatusBadRequest},
		{ts, "?q=openai,example.com", `"example.com" is not a service`, http.StatusBadRequest},
		{ts, "?q=" + strings.Repeat("groq,", 10) + "groq", "at most 10", http.StatusBadRequest},
		{ts, "?q=%zz", "malformed query string", http.StatusBadRequest},
		// The first request spends the budget of one.
		{limited, "?q=groq", "✅ Groq up", http.StatusOK},
		{limited, "?q=groq", "⏳ aistatus: rate limited, retry in 60 s", http.StatusTooManyRequests},
	} {
		resp := tc.ts.do(t, http.MethodGet, snapshot.PathStatusline+tc.query, nil)
		got := string(body(t, resp))
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != snapshot.ContentText ||
			!strings.Contains(got, tc.says) || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") || strings.Contains(got, "{") {
			t.Errorf("%s: %d %s %q, want %d, one line of text saying %q", tc.query, resp.StatusCode, resp.Header.Get("Content-Type"), got, tc.status, tc.says)
		}
		if tc.status == http.StatusTooManyRequests && (resp.Header.Get("Retry-After") != "60" || resp.Header.Get("Cache-Control") != "no-store") {
			t.Errorf("429 headers: %v", resp.Header)
		}
	}
	if p, ok := problemAt(t, limited, snapshot.PathCheck+"?q=groq", http.StatusTooManyRequests); ok && !strings.Contains(p.Detail, "rate limit of 1 requests per minute") {
		t.Errorf("/check's 429: %+v", p)
	}

	none := New(Options{Dir: filepath.Join(t.TempDir(), "none"), Log: zerolog.Nop()})
	rec := httptest.NewRecorder()
	none.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, snapshot.PathStatusline, nil))
	if got := rec.Body.String(); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Content-Type") != snapshot.ContentText ||
		!strings.Contains(got, "no snapshot") || strings.Count(got, "\n") != 1 {
		t.Errorf("no snapshot: %d %s %q", rec.Code, rec.Header().Get("Content-Type"), got)
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
// are served at their paths with their types, /metrics included (the
// built file, followed by the crowd's series: TestCrowdOnMetrics).
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
		got := body(t, resp)
		if tc.path == snapshot.PathMetrics {
			got = got[:min(len(got), len(want))]
		}
		if resp.StatusCode != http.StatusOK || string(got) != string(want) || resp.Header.Get("Content-Type") != tc.contentType {
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
