package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/rs/zerolog"
)

// An untracked query's answer leaves the advice fields out and has empty
// lists, not nulls.
func TestCheckUntrackedShape(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	resp := ts.do(t, http.MethodGet, "/api/v1/check?q=example.com&error=500", nil)
	raw := body(t, resp)
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	v := doc["verdict"].(map[string]any)
	for _, absent := range []string{"action", "blame", "confidence", "reason"} {
		if _, ok := v[absent]; ok {
			t.Errorf("untracked verdict has %s: %s", absent, raw)
		}
	}
	if v["retryAfterSeconds"] != nil || len(v["evidence"].([]any)) != 0 || len(v["alternatives"].([]any)) != 0 || doc["error"] != "500" {
		t.Errorf("untracked verdict: %s", raw)
	}

}

func TestCheckRejectsBadError(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, e := range []string{"", "abc", "600", "99", "4290", "%2B429", "TIMEOUT", "429%20"} {
		resp := ts.do(t, http.MethodGet, "/api/v1/check?q=openai&error="+e, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("error=%s: status %d, want 400", e, resp.StatusCode)
		}
		if p := decodeProblem(t, resp); p.Param != "error" || !strings.Contains(p.Detail, "timeout") {
			t.Errorf("error=%s: problem %+v", e, p)
		}
	}
}

// TestViewMatchesAPass checks the incidents the snapshot gives /check (its
// check.View) — the open ones, how many started within a week and the
// newest of those — against a pass over every retained incident, for every
// service of a synthetic snapshot with incidents spread over 85 days and
// some still open.
func TestViewMatchesAPass(t *testing.T) {
	t.Parallel()
	ts := newSynthServer(t, 1000, 0) // about forty a service: enough to search, a fifth of the time
	snap := ts.Store().Current()
	horizon := snap.Manifest.GeneratedAt.Add(-7 * 24 * time.Hour)
	recentSeen, openSeen := 0, 0
	for _, svc := range ts.cat.Services {
		var open []string
		recent, latest := 0, ""
		for _, inc := range snap.incidents { // newest first
			if inc.Service != svc.Slug {
				continue
			}
			if inc.Open() {
				open = append(open, inc.ID)
			}
			if !inc.StartedAt.Before(horizon) {
				if recent == 0 {
					latest = inc.ID
				}
				recent++
			}
		}
		var gotOpen []string
		for _, inc := range snap.OpenIncidents(svc.Slug) {
			gotOpen = append(gotOpen, inc.ID)
		}
		gotRecent, newest := snap.IncidentsSince(svc.Slug, horizon)
		gotLatest := ""
		if newest != nil {
			gotLatest = newest.ID
		}
		if !slices.Equal(gotOpen, open) || gotRecent != recent || gotLatest != latest {
			t.Errorf("%s: open %v, %d recent, latest %q; a pass gives %v, %d, %q",
				svc.Slug, gotOpen, gotRecent, gotLatest, open, recent, latest)
		}
		recentSeen += recent
		openSeen += len(open)
	}
	// The snapshot must exercise both: incidents inside and outside the
	// window, and open ones.
	if recentSeen == 0 || recentSeen == len(snap.incidents) || openSeen == 0 {
		t.Fatalf("%d of %d incidents recent, %d open: the snapshot does not test the search", recentSeen, len(snap.incidents), openSeen)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	tests := []struct {
		q       string
		tracked bool
		slug    string
		level   string
	}{
		{"openai", true, "openai", "degraded"},
		{"OpenAI", true, "openai", "degraded"},
		{"openai api", true, "openai", "degraded"},
		// ChatGPT is OpenAI's app surface, on which this snapshot has no word.
		{"ChatGPT", true, "openai", "unknown"},
		{"https://api.openai.com/v1/chat/completions", true, "openai", "degraded"},
		{"api.anthropic.com", true, "anthropic", "up"},
		{"claude", true, "anthropic", "up"},
		{"Google Gemini", true, "google-gemini", "up"},
		{"generativelanguage.googleapis.com:443", true, "google-gemini", "up"},
		{"openai.azure.com", true, "azure-openai", "up"},
		{"myres.openai.azure.com", true, "azure-openai", "up"},
		{"bedrock-runtime.eu-west-1.amazonaws.com", true, "aws-bedrock", "up"},
		{"HTTPS://WWW.ELEVENLABS.IO/", true, "elevenlabs", "up"},
		{"x.ai", true, "xai", "up"},
		{"grok", true, "xai", "up"},
		{"api.groq.com.", true, "groq", "up"},
		{"example.com", false, "", "untracked"},
		{"opneai", false, "", "untracked"},
		{"http://127.0.0.1:9/", false, "", "untracked"},
		{"münchen.de", false, "", "untracked"},
		// IDN normalisation: full-width letters map to openai.com.
		{"ａｐｉ.ｏｐｅｎａｉ.ｃｏｍ", true, "openai", "degraded"},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, "/api/v1/check?q="+urlQuery(tt.q), nil)
			var doc api.CheckDoc
			if err := json.Unmarshal(body(t, resp), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Tracked != tt.tracked || doc.Verdict.Level != tt.level || doc.Query != tt.q {
				t.Fatalf("tracked %v level %q query %q, want %v %q", doc.Tracked, doc.Verdict.Level, doc.Query, tt.tracked, tt.level)
			}
			if tt.tracked {
				if doc.Service == nil || doc.Service.Slug != tt.slug || doc.Status == nil || doc.Verdict.Headline == "" || doc.Verdict.Emoji == "" {
					t.Fatalf("doc %+v", doc)
				}
			} else if doc.Service != nil || doc.Status != nil || doc.LatencyMs != nil {
				t.Fatalf("untracked doc carries service data: %+v", doc)
			}
		})
	}
	if doc := checkDoc(t, ts, "opneai"); len(doc.Verdict.Suggestions) == 0 || doc.Verdict.Suggestions[0] != "OpenAI" {
		t.Errorf("suggestions for opneai = %v", doc.Verdict.Suggestions)
	}
}

// The verdict says where the status came from when it matters: our probes
// overruling a calm official page, or a service with no readable page; and
// it names the other surfaces in trouble (claude.ai beside the Claude API).
func TestCheckSaysWhereTheStatusCameFrom(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tt := range []struct {
		q, level, detail string
	}{
		{"cohere", "down", "while the official status page says operational"},
		{"mistral", "up", "no status page that a program can read"},
		{"anthropic", "up", "Also: claude.ai is down (major outage) per the official status page; and Claude Code is down"},
		{"groq", "up", ""},
	} {
		doc := checkDoc(t, ts, tt.q)
		if doc.Verdict.Level != tt.level || (tt.detail == "") != (doc.Verdict.Detail == "") || !strings.Contains(doc.Verdict.Detail, tt.detail) {
			t.Errorf("%s: verdict %+v, want level %s and a detail saying %q", tt.q, doc.Verdict, tt.level, tt.detail)
		}
	}
}

// TestCheckSaysWhenToComeBack: during an outage, and where the advice is
// to wait or fail over, the verdict says when to ask again, within its
// bounds, and what ends the wait, naming the event and the open incident;
// while the service is up, it says neither (the keys are absent). Every
// answer is validated against the OpenAPI description.
func TestCheckSaysWhenToComeBack(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tt := range []struct {
		query string
		// want are the conditions the answer must carry, as
		// "condition event subject incident"; nil: neither key.
		want []string
	}{
		{"q=anthropic", nil},
		{"q=openai", nil}, // degraded: proceed
		{"q=cohere", []string{"recovered service.recovered cohere"}},
		{"q=openai&error=503", []string{"recovered service.recovered openai", "incident_resolved incident.resolved openai openai-01"}},
		{"q=claude.ai", []string{"recovered surface.recovered anthropic/app"}},
	} {
		raw := body(t, ts.do(t, http.MethodGet, "/api/v1/check?"+tt.query, nil))
		var doc api.CheckDoc
		var keys struct {
			Verdict map[string]json.RawMessage `json:"verdict"`
		}
		if err := errors.Join(json.Unmarshal(raw, &doc), json.Unmarshal(raw, &keys)); err != nil {
			t.Fatal(err)
		}
		v := doc.Verdict
		if tt.want == nil {
			_, poll := keys.Verdict["pollAfterSeconds"]
			_, resume := keys.Verdict["resumeWhen"]
			if poll || resume {
				t.Errorf("%s: %s, want neither pollAfterSeconds nor resumeWhen", tt.query, raw)
			}
			continue
		}
		if p := v.PollAfterSeconds; p == nil || *p < 30 || *p > 900 {
			t.Errorf("%s: pollAfterSeconds %v, want 30 to 900", tt.query, p)
		}
		var got []string
		for _, c := range v.ResumeWhen {
			got = append(got, strings.Join(strings.Fields(c.Condition+" "+string(c.Event)+" "+c.Subject+" "+c.Incident), " "))
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: resumeWhen %q, want %q in it", tt.query, got, w)
			}
		}
	}
}

func TestCheckRejectsBadQuery(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, q := range []string{"", "?q=", "?q=" + strings.Repeat("a", 257), "?q=%ff%fe"} {
		resp := ts.do(t, http.MethodGet, "/api/v1/check"+q, nil)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%.40s: status %d, want 400", q, resp.StatusCode)
		}
		if p := decodeProblem(t, resp); p.Param != "q" {
			t.Errorf("%.40s: param %q", q, p.Param)
		}
	}
}

func checkDoc(t testing.TB, ts *testServer, q string) api.CheckDoc {
	t.Helper()
	var doc api.CheckDoc
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, "/api/v1/check?q="+urlQuery(q), nil)), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func urlQuery(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "+", "%2B", " ", "%20", "#", "%23", "?", "%3F")
	return r.Replace(s)
}

func TestCheckLiveProbeIsCoalescedAndCached(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Go(func() {
			if doc := checkDoc(t, ts, "anthropic"); doc.LatencyMs == nil {
				t.Error("no live latency")
			}
		})
	}
	wg.Wait()
	if n := ts.api.hits.Load(); n != 1 {
		t.Fatalf("50 concurrent checks made %d probes, want 1", n)
	}
	ts.clock.Set(ts.clock.Now().Add(29 * time.Second))
	checkDoc(t, ts, "claude")
	if n := ts.api.hits.Load(); n != 1 {
		t.Fatalf("a check within 30 s probed again (%d probes)", n)
	}
	ts.clock.Set(ts.clock.Now().Add(2 * time.Second))
	checkDoc(t, ts, "anthropic")
	if n := ts.api.hits.Load(); n != 2 {
		t.Fatalf("after 31 s: %d probes, want 2", n)
	}
	checkDoc(t, ts, "example.com")
	checkDoc(t, ts, ts.api.URL)
	if n := ts.api.hits.Load(); n != 2 {
		t.Fatalf("untracked queries caused outbound requests (%d probes)", n)
	}
}

func TestCheckSaysWhenDataIsStale(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	ts.clock.Set(genTime.Add(16 * time.Minute))
	doc := checkDoc(t, ts, "anthropic")
	if doc.Verdict.Level != "stale" || !doc.Verdict.Stale || !strings.Contains(doc.Verdict.Headline, "stale") ||
		doc.Verdict.DataAgeSeconds == nil || *doc.Verdict.DataAgeSeconds != 960 {
		t.Fatalf("verdict on 16-minute-old data: %+v", doc.Verdict)
	}
}

// /check understands the vendor words people type, and offers the closest
// tracked names for a near miss.
func TestCheckVendorWordsAndNearMisses(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for q, slug := range map[string]string{
		"azure": "azure-openai", "aws": "aws-bedrock", "bedrock": "aws-bedrock", "Amazon Bedrock": "aws-bedrock",
		"vertex": "google-gemini", "Vertex AI": "google-gemini", "gemini": "google-gemini", "codex": "openai",
		"sonar": "perplexity", "11labs": "elevenlabs", "stable diffusion": "stability", "langchain": "langsmith",
		"copilot": "github-copilot", "github copilot": "github-copilot", "api.githubcopilot.com": "github-copilot",
	} {
		if doc := checkDoc(t, ts, q); !doc.Tracked || doc.Service.Slug != slug {
			t.Errorf("%q: tracked %v, service %+v; want %s", q, doc.Tracked, doc.Service, slug)
		}
	}
	// GitHub itself is not tracked, only Copilot on its page: "github" is
	// untracked with GitHub Copilot suggested, never Copilot's status.
	for q, want := range map[string]string{"anthropc": "Anthropic", "azur": "Azure OpenAI", "bedrok": "Amazon Bedrock", "mistrl": "Mistral AI",
		"github": "GitHub Copilot", "github.com": "GitHub Copilot"} {
		doc := checkDoc(t, ts, q)
		if doc.Tracked || !slices.Contains(doc.Verdict.Suggestions, want) {
			t.Errorf("%q: tracked %v, suggestions %v; want %q among them", q, doc.Tracked, doc.Verdict.Suggestions, want)
		}
	}
}

// /check's code and retryAfter: accepted as the OpenAPI says (every answer
// is validated against it by ts.do), refused with a problem naming them.
func TestCheckCodeParameters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tt := range []struct {
		query string
		code  int
		param string
	}{
		{"q=openai&error=429&code=insufficient_quota", http.StatusOK, ""},
		{"q=anthropic&error=429&code=rate_limit_error&retryAfter=20", http.StatusOK, ""},
		{"q=anthropic&code=overloaded_error", http.StatusOK, ""},
		{"q=openai&code=", http.StatusBadRequest, "code"},
		{"q=openai&code=a%20b", http.StatusBadRequest, "code"},
		{"q=openai&code=" + strings.Repeat("x", 65), http.StatusBadRequest, "code"},
		{"q=openai&retryAfter=soon", http.StatusBadRequest, "retryAfter"},
		{"q=openai&retryAfter=-1", http.StatusBadRequest, "retryAfter"},
		{"q=openai&retryAfter=86401", http.StatusBadRequest, "retryAfter"},
	} {
		resp := ts.do(t, http.MethodGet, "/api/v1/check?"+tt.query, nil)
		if resp.StatusCode != tt.code {
			t.Errorf("%s: %d, want %d", tt.query, resp.StatusCode, tt.code)
			continue
		}
		if tt.param != "" {
			if p := decodeProblem(t, resp); p.Param != tt.param {
				t.Errorf("%s: problem names %q, want %q", tt.query, p.Param, tt.param)
			}
		}
	}
}

// /check?code= without error=: an SDK's or a gRPC error carries a code and
// no HTTP status. The code is accepted alone and read on its own, as its
// row for the status the provider sends it with most; it is no crowd
// report (no error was sent).
func TestCheckCodeAlone(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, tt := range []struct {
		query, action, says string
	}{
		{"q=gemini&code=RESOURCE_EXHAUSTED", "retry", "a transient rate limit (https://ai.google.dev/gemini-api/docs/generate-content/api-errors). Without the HTTP status"},
		{"q=gemini&error=402&code=RESOURCE_EXHAUSTED", "fix_client", "a quota or billing limit"},
		{"q=gemini&error=429&code=RESOURCE_EXHAUSTED", "retry", "a transient rate limit"},
		{"q=anthropic&code=rate_limit_error", "retry", "a transient rate limit"},
	} {
		resp := ts.do(t, http.MethodGet, "/api/v1/check?"+tt.query, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d, want 200", tt.query, resp.StatusCode)
			continue
		}
		var doc api.CheckDoc
		if err := json.Unmarshal(body(t, resp), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Verdict.Action != tt.action || doc.Code == nil {
			t.Errorf("%s: action %q, code echoed %v; want %s", tt.query, doc.Verdict.Action, doc.Code, tt.action)
		}
		if !slices.ContainsFunc(doc.Verdict.Evidence, func(e api.Evidence) bool {
			return e.Source == api.EvidenceCaller && strings.Contains(e.Says, tt.says)
		}) {
			t.Errorf("%s: no caller evidence saying %q: %+v", tt.query, tt.says, doc.Verdict.Evidence)
		}
		if !strings.Contains(tt.query, "error=") && slices.ContainsFunc(doc.Verdict.Evidence, func(e api.Evidence) bool { return e.Source == api.EvidenceReports }) {
			t.Errorf("%s: a code without error= counted as a crowd report", tt.query)
		}
	}
}

// The snapshot gives /check each service's probe of the latest build, from
// sources.json, dated by its check (check.View's BuildProbe).
func TestViewBuildProbe(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	snap := ts.Store().Current()
	for slug, state := range map[string]string{"anthropic": api.ProbeOK, "cohere": api.ProbeFailed} {
		p, ok := snap.BuildProbe(slug)
		if !ok || p.Probe.State != state || !p.At.Equal(genTime) {
			t.Errorf("%s: %+v %v, want state %s at %s", slug, p, ok, state, genTime)
		}
	}
	if _, ok := snap.BuildProbe("nothing"); ok {
		t.Error("a build probe for an untracked slug")
	}
}

// TestCheckProbesTheSurfaceHost: /check on an app or a console probes that
// surface's own host (a loopback fake here, reached through the outbound
// client's dial guard, which lets only the catalog's URLs reach an internal
// address), once per LiveTTL, so that latencyMs is a number; its status
// stays the page's (claude.ai down, ChatGPT unknown: this snapshot has no
// word on it). A coding agent has no host, and no latency.
func TestCheckProbesTheSurfaceHost(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		w.WriteHeader(http.StatusForbidden) // a bot challenge is an answer
	}))
	t.Cleanup(host.Close)
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// The surfaces' hosts are not the API hosts': the guard must let each
	// through by its own URL.
	probeAt(&cat, newFakeAPI(t).URL)
	for _, svc := range cat.Services {
		for i, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[i].ProbeURL = host.URL + "/" + svc.Slug + "/" + string(sf.ID)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "public")
	publishTestSnapshot(t, dir, cat, genTime)
	// No Client: the server makes its own, with the dial guard.
	srv := New(Options{Dir: dir, Catalog: cat, Log: zerolog.Nop(), Now: newTestClock(genTime.Add(time.Minute)).Now})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	ts := &testServer{Server: srv, dir: dir, cat: cat}
	for _, tt := range []struct {
		q       string
		status  api.Status
		latency bool
		asked   []string
	}{
		{"chatgpt", api.Unknown, true, []string{"/openai/app"}},
		{"chatgpt.com", api.Unknown, true, []string{"/openai/app"}}, // cached
		{"claude.ai", api.MajorOutage, true, []string{"/openai/app", "/anthropic/app"}},
		{"platform.claude.com", api.Operational, true, []string{"/openai/app", "/anthropic/app", "/anthropic/console"}},
		{"claude code", api.MajorOutage, false, []string{"/openai/app", "/anthropic/app", "/anthropic/console"}},
	} {
		doc := checkDoc(t, ts, tt.q)
		mu.Lock()
		got := slices.Clone(asked)
		mu.Unlock()
		if doc.Status == nil || *doc.Status != tt.status || (doc.LatencyMs != nil) != tt.latency || (doc.LatencyCheckedAt != nil) != tt.latency ||
			!slices.Equal(got, tt.asked) {
			t.Errorf("%s: status %v, latency %v; hosts asked %v; want %s, a latency %v, %v", tt.q, doc.Status, doc.LatencyMs, got, tt.status, tt.latency, tt.asked)
		}
	}
}
