package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/models"
	"github.com/aistatus/aistatus/serve/limits"
	"github.com/aistatus/aistatus/snapshot"
	"github.com/rs/zerolog"
)

var genTime = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// testClock is a settable, concurrency-safe clock.
type testClock struct{ ns atomic.Int64 }

func newTestClock(t time.Time) *testClock { c := &testClock{}; c.Set(t); return c }
func (c *testClock) Now() time.Time       { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Set(t time.Time)      { c.ns.Store(t.UnixNano()) }

// testIncidents are the incidents of the test snapshot, newest first.
func testIncidents() []api.Incident {
	ended := genTime.Add(-47 * time.Hour)
	return []api.Incident{
		{ID: "openai-01", Service: "openai", Headline: "Elevated errors", Severity: api.Major, StartedAt: genTime.Add(-1 * time.Hour), Status: "investigating", Source: api.SourceOfficial, UpdatedAt: genTime},
		{ID: "anthropic-02", Service: "anthropic", Headline: "Slow responses", Severity: api.Minor, StartedAt: genTime.Add(-30 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: ended},
		{ID: "openai-03", Service: "openai", Headline: "Outage", Severity: api.Critical, StartedAt: genTime.Add(-10 * 24 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: ended},
		{ID: "groq-04", Service: "groq", Headline: "Old outage", Severity: api.Major, StartedAt: genTime.Add(-40 * 24 * time.Hour), EndedAt: &ended, Status: "resolved", Source: api.SourceProbe, UpdatedAt: ended},
	}
}

// renderTestSnapshot renders a snapshot of cat generated at at, with openai
// degraded, cohere down by our probes while its page says operational, the
// services without a feed read by our probe alone, and every other service
// operational.
func renderTestSnapshot(cat catalog.Catalog, at time.Time) (map[string][]byte, error) {
	h := history.New()
	h.Incidents = testIncidents()
	states := map[string]build.ServiceState{}
	for _, svc := range cat.Services {
		st := api.Operational
		latency := 120.0
		sources := api.Sources{
			Feed:  api.FeedSource{Format: svc.Feed.Format, State: api.FeedOK, Status: st},
			Probe: api.ProbeSource{State: api.ProbeOK, LatencyMs: &latency, HTTPStatus: 401},
		}
		switch {
		case svc.Slug == "openai":
			st = api.Degraded
			sources.Feed.Status = st
		case svc.Slug == "cohere":
			st = api.MajorOutage
			sources.Probe = api.ProbeSource{State: api.ProbeFailed, Error: "connection refused"}
			sources.Disagreement = &api.Disagreement{By: api.EvidenceProbe, Since: at.Add(-3 * time.Minute), Official: api.Operational,
				Measured: api.MajorOutage, Detail: "Our probes of the API have failed 3 times in a row, while the official status page says operational."}
		case svc.Feed.Format == catalog.FormatNone:
			sources.Feed = api.FeedSource{Format: catalog.FormatNone, State: api.FeedNone, Note: svc.Feed.Note}
		}
		h.Track(svc.Slug).Record(at.Add(-time.Hour), st, new(100.0))
		h.Track(svc.Slug).Record(at, st, new(120.0))
		states[svc.Slug] = build.ServiceState{Status: st, Sources: sources, Surfaces: testSurfaces(svc)}
	}
	models.AssembleModels(h, cat, nil, testGatewayReads(), at, zerolog.Nop())
	return build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, cat, h, states, at)
}

// testSurfaces are the surfaces the test snapshot has read: Anthropic's,
// during a claude.ai and Claude Code major outage with the API up and the
// console operational. Every other surface has no word (unknown).
func testSurfaces(svc catalog.Service) []feed.SurfaceResult {
	if svc.Slug != "anthropic" {
		return nil
	}
	var out []feed.SurfaceResult
	for _, sf := range svc.Surfaces {
		st := api.MajorOutage
		if sf.ID == catalog.SurfaceConsole {
			st = api.Operational
		}
		out = append(out, feed.SurfaceResult{ID: sf.ID, Status: st})
	}
	return out
}

// renderedKey names one rendering of the test snapshot: its time and its
// catalog less the probe URLs, which no rendered file carries (each test
// points them at its own fake API host).
type renderedKey struct {
	at      time.Time
	catalog string
}

// rendered memoizes the test snapshot's files: rendering all the services
// takes most of a second, and some fifty tests serve the same snapshot.
// The files are shared between tests, which only read them.
var (
	renderedMu sync.Mutex
	rendered   = map[renderedKey]func() (map[string][]byte, error){}
)

func testSnapshotFiles(cat catalog.Catalog, at time.Time) (map[string][]byte, error) {
	services := slices.Clone(cat.Services)
	for i := range services {
		services[i].ProbeURL = ""
		services[i].Surfaces = slices.Clone(services[i].Surfaces)
		for j := range services[i].Surfaces {
			services[i].Surfaces[j].ProbeURL = ""
		}
	}
	fingerprint, err := json.Marshal(services)
	if err != nil {
		return nil, err
	}
	key := renderedKey{at: at.UTC(), catalog: string(fingerprint)}
	renderedMu.Lock()
	render, ok := rendered[key]
	if !ok {
		render = sync.OnceValues(func() (map[string][]byte, error) { return renderTestSnapshot(cat, at) })
		rendered[key] = render
	}
	renderedMu.Unlock()
	files, err := render()
	if err != nil {
		return nil, err
	}
	// The rendering shared by catalogs that differ only in their probe
	// URLs (each test's own loopback API) carries the first one's catalog,
	// and /check probes by the snapshot's.
	data, err := json.Marshal(cat)
	if err != nil {
		return nil, err
	}
	return withFile(files, snapshot.FileCatalog, append(data, '\n'))
}

// withFile returns files with name's content replaced by data, resealed
// (the manifest lists every file's hash).
func withFile(files map[string][]byte, name string, data []byte) (map[string][]byte, error) {
	var m snapshot.Manifest
	if err := json.Unmarshal(files[snapshot.FileManifest], &m); err != nil {
		return nil, err
	}
	out := snapshot.Files{}
	sealed := snapshot.NewSealer(out)
	for file, body := range files {
		switch file {
		case snapshot.FileManifest:
			continue
		case name:
			body = data
		}
		if err := sealed.Put(file, body); err != nil {
			return nil, err
		}
	}
	sealed.Seal(&m)
	manifest, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	out[snapshot.FileManifest] = append(manifest, '\n')
	return out, nil
}

// publishTestSnapshot publishes the test snapshot of cat generated at at
// (renderTestSnapshot) into dir.
func publishTestSnapshot(t testing.TB, dir string, cat catalog.Catalog, at time.Time) {
	t.Helper()
	files, err := testSnapshotFiles(cat, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := snapshot.Publish(dir, files); err != nil {
		t.Fatal(err)
	}
}

// probeAt points every probe URL of cat, a service's and a surface's
// (claude.ai), at base: /<slug> and /<slug>/<surface>.
func probeAt(cat *catalog.Catalog, base string) {
	for i := range cat.Services {
		svc := &cat.Services[i]
		if svc.ProbeURL != "" {
			svc.ProbeURL = base + "/" + svc.Slug
		}
		svc.Surfaces = slices.Clone(svc.Surfaces)
		for j, sf := range svc.Surfaces {
			if sf.ProbeURL != "" {
				svc.Surfaces[j].ProbeURL = base + "/" + svc.Slug + "/" + string(sf.ID)
			}
		}
	}
}

// fakeAPI is a loopback API host that counts the probes it receives.
type fakeAPI struct {
	*httptest.Server
	hits atomic.Int64
}

func newFakeAPI(t testing.TB) *fakeAPI { return newFakeAPIDown(t, "") }

// newFakeAPIDown is newFakeAPI with the hosts of the service down ("":
// none) answering every probe 500 with the error body Anthropic's API
// documents for its internal errors.
func newFakeAPIDown(t testing.TB, down string) *fakeAPI {
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		if slug, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); down != "" && slug == down {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(f.Close)
	return f
}

type testServer struct {
	*Server
	dir   string
	clock *testClock
	api   *fakeAPI
	cat   catalog.Catalog
}

// newTestServer serves a fresh test snapshot; every probe URL of the catalog
// points at a fake API host.
func newTestServer(t testing.TB, rateLimit int) *testServer {
	t.Helper()
	return newTestServerStarted(t, rateLimit, genTime.Add(time.Minute))
}

// newTestServerStarted is newTestServer with the server started (its clock
// set) at start: a test sets the clock later to have the server run since.
func newTestServerStarted(t testing.TB, rateLimit int, start time.Time) *testServer {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t)
	probeAt(&cat, api.URL)
	dir := filepath.Join(t.TempDir(), "public")
	publishTestSnapshot(t, dir, cat, genTime)
	clock := newTestClock(start)
	srv := New(Options{Dir: dir, Catalog: cat, RateLimit: rateLimit, Log: zerolog.Nop(), Now: clock.Now, Client: api.Client()})
	if ok, err := srv.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	return &testServer{Server: srv, dir: dir, clock: clock, api: api, cat: cat}
}

// placeholder matches a path parameter ({slug}, {author}) once quoted.
var placeholder = regexp.MustCompile(`\\\{[a-z]+\\\}`)

// operationPath matches the paths of the routes, from the route table: a
// route added there is validated against the OpenAPI description by every
// test that asks it (a GET of a file the description describes is too:
// contractDescribes). The event stream is left out (a response that never
// ends; events_test.go checks its shape), and so is /mcp, whose operation
// is a POST (hardening_test.go checks its answers against it).
var operationPath = func() *regexp.Regexp {
	var alts []string
	for _, rt := range snapshot.Routes() {
		if rt.ContentType != snapshot.ContentEventStream && rt.Path != snapshot.PathMCP {
			alts = append(alts, placeholder.ReplaceAllString(regexp.QuoteMeta(rt.Path), "[^/]+"))
		}
	}
	return regexp.MustCompile("^(" + strings.Join(alts, "|") + ")$")
}()

// do sends a request through the handler, checks the headers every response
// must carry, and validates API responses against the OpenAPI description.
func (ts *testServer) do(t testing.TB, method, target string, header http.Header) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.RemoteAddr = "192.0.2.1:1234"
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	resp := rec.Result()
	for _, h := range snapshot.CommonHeaders() {
		if h.Name == "Cache-Control" {
			continue
		}
		if got := resp.Header.Get(h.Name); got != h.Value {
			t.Errorf("%s %s: header %s = %q, want %q", method, target, h.Name, got, h.Value)
		}
	}
	if (operationPath.MatchString(req.URL.Path) || contractDescribes(req.URL.Path)) && method == http.MethodGet && resp.Header.Get("Content-Encoding") == "" {
		assertContract(t, req, resp.StatusCode, resp.Header, rec.Body.Bytes())
	}
	return resp
}

func body(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// problemAt GETs target and returns its problem, failing the test (but not
// stopping it) with ok false when the status is not want.
func problemAt(t *testing.T, ts *testServer, target string, want int) (p api.Problem, ok bool) {
	t.Helper()
	resp := ts.do(t, http.MethodGet, target, nil)
	if resp.StatusCode != want {
		t.Errorf("%s: %d, want %d", target, resp.StatusCode, want)
		return api.Problem{}, false
	}
	return decodeProblem(t, resp), true
}

func decodeProblem(t testing.TB, resp *http.Response) api.Problem {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentProblem {
		t.Fatalf("content type %q, want %s", ct, snapshot.ContentProblem)
	}
	var p api.Problem
	if err := json.Unmarshal(body(t, resp), &p); err != nil {
		t.Fatal(err)
	}
	if p.Status != resp.StatusCode || p.Title == "" || p.Detail == "" || p.Type == "" {
		t.Fatalf("incomplete problem %+v for status %d", p, resp.StatusCode)
	}
	return p
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	tests := []struct {
		path        string
		status      int
		contentType string
		contains    string
	}{
		{"/api/v1/status", 200, "application/json", `"slug":"openai"`},
		{"/api/v1/services/openai", 200, "application/json", `"status":"degraded"`},
		{"/api/v1/services/nope", 404, snapshot.ContentProblem, `nope`},
		{"/api/v1/services/", 404, snapshot.ContentProblem, ``},
		{"/api/v1/incidents", 200, "application/json", `"openai-01"`},
		{"/api/v1/incidents?severity=bad", 400, snapshot.ContentProblem, `severity`},
		{"/api/v1/check?q=openai", 200, "application/json", `"tracked":true`},
		{"/api/v1/check", 400, snapshot.ContentProblem, `q is required`},
		{"/api/v1/openapi.json", 200, "application/json", `"3.0.3"`},
		{"/api/v1/export", 200, snapshot.ContentCSV, "slug,name,category,domain,status,lastChecked\r\n"},
		{"/api/v1/export?format=csv", 200, snapshot.ContentCSV, "openai,OpenAI,llm-api,openai.com,degraded,2026-11-01T12:00:00Z"},
		{"/api/v1/export?format=xml", 400, snapshot.ContentProblem, `csv`},
		{"/api/v1/nothing", 404, snapshot.ContentProblem, ``},
		{"/api/v2/status", 404, snapshot.ContentProblem, ``},
		{"/status.json", 200, "application/json", `"services"`},
		{"/services/openai.json", 200, "application/json", `"slug":"openai"`},
		{"/", 200, "text/html; charset=utf-8", `<html`},
		// Files served by their exact name skip the ServeMux; the rest of
		// what it did still holds: unclean paths are redirected to the file,
		// files that are not content stay hidden.
		{"/services/../status.json", 307, "text/html; charset=utf-8", `href="/status.json"`},
		{"//status.json", 307, "text/html; charset=utf-8", `href="/status.json"`},
		{"/history.json", 404, snapshot.ContentProblem, ``},
		{"/_headers", 404, snapshot.ContentProblem, ``},
		{"/nothing", 404, snapshot.ContentProblem, ``},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, tt.path, nil)
			data := body(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, data)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tt.contentType)
			}
			if !bytes.Contains(data, []byte(tt.contains)) {
				t.Errorf("body does not contain %q: %.300s", tt.contains, data)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != snapshot.CacheControl {
				t.Errorf("Cache-Control %q", cc)
			}
		})
	}
}

func TestConditionalAndCompressed(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	first := ts.do(t, http.MethodGet, "/api/v1/status", nil)
	plain := body(t, first)
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatalf("no ETag: %v", first.Header)
	}
	// The ETag is the only validator: a date-based condition is ignored
	// (RFC 9110 §13.1.3), never answered 304 or 412 from a date we do not send.
	for _, cond := range []string{"If-Modified-Since", "If-Unmodified-Since"} {
		resp := ts.do(t, http.MethodGet, "/api/v1/status", http.Header{cond: {"Sat, 01 Jan 2000 00:00:00 GMT"}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Last-Modified") != "" {
			t.Fatalf("%s: status %d, Last-Modified %q", cond, resp.StatusCode, resp.Header.Get("Last-Modified"))
		}
	}

	notModified := ts.do(t, http.MethodGet, "/api/v1/status", http.Header{"If-None-Match": {etag}})
	if notModified.StatusCode != http.StatusNotModified || len(body(t, notModified)) != 0 {
		t.Fatalf("If-None-Match: status %d", notModified.StatusCode)
	}

	zipped := ts.do(t, http.MethodGet, "/api/v1/status", http.Header{"Accept-Encoding": {"br, gzip;q=0.8"}})
	if zipped.Header.Get("Content-Encoding") != "gzip" || zipped.Header.Get("ETag") == etag {
		t.Fatalf("gzip: encoding %q, etag %q", zipped.Header.Get("Content-Encoding"), zipped.Header.Get("ETag"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body(t, zipped)))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain) {
		t.Fatal("gzip body differs from the identity body")
	}
	if r := ts.do(t, http.MethodGet, "/api/v1/status", http.Header{"Accept-Encoding": {"gzip;q=0"}}); r.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that refused it")
	}

	head := ts.do(t, http.MethodHead, "/api/v1/status", nil)
	if head.StatusCode != 200 || len(body(t, head)) != 0 || head.Header.Get("Content-Length") != first.Header.Get("Content-Length") {
		t.Fatalf("HEAD: %d, length %q", head.StatusCode, head.Header.Get("Content-Length"))
	}

	// Dynamic routes have validators too.
	inc := ts.do(t, http.MethodGet, "/api/v1/incidents?service=openai", nil)
	again := ts.do(t, http.MethodGet, "/api/v1/incidents?service=openai", http.Header{"If-None-Match": {inc.Header.Get("ETag")}})
	if again.StatusCode != http.StatusNotModified {
		t.Fatalf("dynamic If-None-Match: %d", again.StatusCode)
	}
}

func TestMethods(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		resp := ts.do(t, method, "/api/v1/status", nil)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("%s: %d, Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
		decodeProblem(t, resp)
	}
	pre := ts.do(t, http.MethodOptions, "/api/v1/check?q=x", http.Header{
		"Origin": {"https://example.org"}, "Access-Control-Request-Method": {"GET"},
	})
	if pre.StatusCode != http.StatusNoContent || !strings.Contains(pre.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Fatalf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
}

func TestNoSnapshotYet(t *testing.T) {
	t.Parallel()
	srv := New(Options{Dir: filepath.Join(t.TempDir(), "none"), Log: zerolog.Nop()})
	if ok, err := srv.Store().Reload(); ok || err != nil {
		t.Fatalf("reload of an empty folder: %v %v", ok, err)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/status", nil))
	resp := rec.Result()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Cache-Control") != "no-store" ||
		resp.Header.Get("Access-Control-Expose-Headers") != snapshot.ExposeHeaders {
		t.Fatalf("status %d headers %v", resp.StatusCode, resp.Header)
	}
	decodeProblem(t, resp)
}

// TestNoSnapshotYetSays: the 503 before the first snapshot says why there
// is none — being built only where this process builds — and costs no
// request of the rate limit; the budget is whole when the snapshot comes.
func TestNoSnapshotYetSays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		buildsHere bool
		detail     string
		notSaid    string
	}{
		{"aistatus run", true, "the first snapshot is still being built", "published"},
		{"aistatus serve", false, "no snapshot has been published for this server to serve yet", "being built"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "public")
			cat, err := catalog.Default()
			if err != nil {
				t.Fatal(err)
			}
			srv := New(Options{Dir: dir, Catalog: cat, BuildsHere: tc.buildsHere, RateLimit: 2, Log: zerolog.Nop(),
				Now: func() time.Time { return genTime.Add(time.Minute) }})
			get := func() *http.Response {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, snapshot.PathStatus, nil)
				req.RemoteAddr = "192.0.2.1:1234"
				srv.Handler().ServeHTTP(rec, req)
				return rec.Result()
			}
			for i := range 5 {
				resp := get()
				if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("RateLimit") != "" {
					t.Fatalf("request %d: %d, RateLimit %q", i+1, resp.StatusCode, resp.Header.Get("RateLimit"))
				}
				p := decodeProblem(t, resp)
				if !strings.Contains(p.Detail, tc.detail) || strings.Contains(p.Detail, tc.notSaid) {
					t.Fatalf("detail %q, want %q and not %q", p.Detail, tc.detail, tc.notSaid)
				}
			}
			publishTestSnapshot(t, dir, cat, genTime)
			if ok, err := srv.Store().Reload(); !ok || err != nil {
				t.Fatalf("reload: %v %v", ok, err)
			}
			for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
				if resp := get(); resp.StatusCode != want {
					t.Errorf("after the snapshot, request %d: %d, want %d", i+1, resp.StatusCode, want)
				}
			}
		})
	}
}

// TestNoSnapshotYetPage: before the first snapshot, a browser on the site
// gets a page saying so and when to come back, still a 503 with
// Retry-After; an API client (one asking for JSON, curl's */*, or any
// request of an API path) gets the problem.
func TestNoSnapshotYetPage(t *testing.T) {
	t.Parallel()
	srv := New(Options{Dir: filepath.Join(t.TempDir(), "none"), BuildsHere: true, Log: zerolog.Nop()})
	const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		path, accept string
		page         bool
	}{
		{"/", browser, true},
		{"/services/openai", browser, true},
		{"/", "", false},
		{"/", "*/*", false},
		{"/", snapshot.ContentJSON, false},
		{"/", "application/json, text/html;q=0.5", false},
		{"/", "text/html;q=0", false},
		{snapshot.PathStatus, browser, false},
		{snapshot.PathAPIIndex, browser, false},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		resp := rec.Result()
		what := tc.path + " Accept: " + tc.accept
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "10" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d, Retry-After %q, Cache-Control %q", what, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Cache-Control"))
		}
		if !tc.page {
			if ct := resp.Header.Get("Content-Type"); ct != snapshot.ContentProblem {
				t.Errorf("%s: %s, want a problem", what, ct)
			}
			continue
		}
		page := rec.Body.String()
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" ||
			!strings.Contains(page, "No status snapshot yet") || !strings.Contains(page, "still being built") ||
			!strings.Contains(page, "Come back in 10 seconds") || !strings.Contains(page, `http-equiv="refresh" content="10"`) {
			t.Errorf("%s: %s\n%s", what, ct, page)
		}
	}
}

func TestSnapshotSwap(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	before := body(t, ts.do(t, http.MethodGet, "/api/v1/status", nil))
	publishTestSnapshot(t, ts.dir, ts.cat, genTime.Add(time.Minute))
	if ok, err := ts.Store().Reload(); !ok || err != nil {
		t.Fatalf("reload: %v %v", ok, err)
	}
	if ok, _ := ts.Store().Reload(); ok {
		t.Fatal("reloaded an unchanged snapshot")
	}
	after := body(t, ts.do(t, http.MethodGet, "/api/v1/status", nil))
	if bytes.Equal(before, after) || !bytes.Contains(after, []byte("2026-11-01T12:01:00Z")) {
		t.Fatalf("snapshot not swapped: %s", after)
	}
}

func TestIncidentFilters(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	tests := []struct {
		query     string
		ids       []string
		truncated bool
		filters   api.Filters
	}{
		{"", []string{"openai-01", "anthropic-02", "openai-03"}, false, api.Filters{}},
		{"?service=openai", []string{"openai-01", "openai-03"}, false, api.Filters{Service: ptr("openai")}},
		{"?severity=critical", []string{"openai-03"}, false, api.Filters{Severity: ptr("critical")}},
		{"?since=2026-10-31T12:00:00Z", []string{"openai-01"}, false, api.Filters{Since: ptr("2026-10-31T12:00:00Z")}},
		{"?since=2026-10-31T13:00:00%2B01:00", []string{"openai-01"}, false, api.Filters{Since: ptr("2026-10-31T13:00:00+01:00")}},
		{"?since=2026-10-31", []string{"openai-01", "anthropic-02"}, false, api.Filters{Since: ptr("2026-10-31")}},
		{"?since=2026-09-01", []string{"openai-01", "anthropic-02", "openai-03", "groq-04"}, false, api.Filters{Since: ptr("2026-09-01")}},
		{"?since=2026-09-01&limit=2", []string{"openai-01", "anthropic-02"}, true, api.Filters{Since: ptr("2026-09-01")}},
		{"?service=groq", []string{}, false, api.Filters{Service: ptr("groq")}},
		{"?service=openai&severity=minor", []string{}, false, api.Filters{Service: ptr("openai"), Severity: ptr("minor")}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, "/api/v1/incidents"+tt.query, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			var list api.IncidentList
			if err := json.Unmarshal(body(t, resp), &list); err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, inc := range list.Incidents {
				ids = append(ids, inc.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("ids %v, want %v", ids, tt.ids)
			}
			if list.Window == nil || list.Window.Truncated != tt.truncated {
				t.Errorf("window %+v, want truncated=%v", list.Window, tt.truncated)
			}
			if got, want := fmtFilters(list.Filters), fmtFilters(tt.filters); got != want {
				t.Errorf("filters %s, want %s", got, want)
			}
		})
	}
}

func TestIncidentFiltersRejectBadInput(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	tests := map[string]string{
		"?since=yesterday":                   "since",
		"?since=2026-13-01":                  "since",
		"?since=" + strings.Repeat("9", 300): "since",
		"?severity=MAJOR":                    "severity",
		"?severity=":                         "severity",
		"?service=not-a-service":             "service",
		"?limit=0":                           "limit",
		"?limit=1001":                        "limit",
		"?limit=ten":                         "limit",
		"?since=%zz":                         "",
		"?" + strings.Repeat("a=b&", 600):    "",
	}
	for query, param := range tests {
		t.Run(query[:min(len(query), 40)], func(t *testing.T) {
			resp := ts.do(t, http.MethodGet, "/api/v1/incidents"+query, nil)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400", resp.StatusCode)
			}
			if p := decodeProblem(t, resp); p.Param != param {
				t.Errorf("param %q, want %q (%s)", p.Param, param, p.Detail)
			}
		})
	}
}

func fmtFilters(f api.Filters) string {
	s := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	return s(f.Since) + "|" + s(f.Severity) + "|" + s(f.Service)
}

func ptr[T any](v T) *T { return &v }

func TestRateLimitResponses(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"local", "redis"} {
		t.Run(backend, func(t *testing.T) { testRateLimitResponses(t, backend == "redis") })
	}
}

func testRateLimitResponses(t *testing.T, withRedis bool) {
	ts := newTestServer(t, 30)
	if withRedis {
		useRedis(t, ts)
	}
	for i := 0; i < 30; i++ {
		resp := ts.do(t, http.MethodGet, "/api/v1/status", nil)
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i+1, resp.StatusCode)
		}
		if got := resp.Header.Get("RateLimit-Policy"); got != `"free";q=30;w=60` {
			t.Fatalf("RateLimit-Policy %q", got)
		}
		// Without it a browser script could not read its budget.
		if got := resp.Header.Get("Access-Control-Expose-Headers"); got != snapshot.ExposeHeaders {
			t.Fatalf("Access-Control-Expose-Headers %q", got)
		}
	}
	resp := ts.do(t, http.MethodGet, "/api/v1/services/openai", nil)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("request 31: %d, want 429", resp.StatusCode)
	}
	// 60 s / 30 requests: the next token in 2 s on the test's clock. Redis
	// runs its own clock, on which the 30 requests took time (over a
	// second under -race on a loaded machine): a token is then partly
	// refilled, and 1 s is as right.
	retryAfter, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if retryAfter != 2 && !(withRedis && retryAfter == 1) || resp.Header.Get("Cache-Control") != "no-store" ||
		!strings.HasPrefix(resp.Header.Get("RateLimit"), `"free";r=0;t=`) ||
		resp.Header.Get("Access-Control-Expose-Headers") != snapshot.ExposeHeaders {
		t.Fatalf("429 headers: %v", resp.Header)
	}
	decodeProblem(t, resp)

	// Another client is not affected; preflights are never limited.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
	req.RemoteAddr = "198.51.100.7:999"
	rec := httptest.NewRecorder()
	ts.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("other client: %d", rec.Code)
	}
	if pre := ts.do(t, http.MethodOptions, "/api/v1/status", nil); pre.StatusCode != http.StatusNoContent {
		t.Fatalf("preflight limited: %d", pre.StatusCode)
	}
	ts.clock.Set(ts.clock.Now().Add(2 * time.Second))
	if withRedis {
		time.Sleep(2 * time.Second) // Redis's own clock decides
	}
	if resp := ts.do(t, http.MethodGet, "/api/v1/status", nil); resp.StatusCode != 200 {
		t.Fatalf("after 2 s: %d", resp.StatusCode)
	}
}

func TestRateLimitBehindTrustedProxy(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"local", "redis"} {
		t.Run(backend, func(t *testing.T) { testRateLimitBehindTrustedProxy(t, backend == "redis") })
	}
}

func testRateLimitBehindTrustedProxy(t *testing.T, withRedis bool) {
	ts := newTestServer(t, 2)
	trusted, _ := limits.ParseTrustedProxies([]string{"10.0.0.0/8"})
	ts.opts.TrustedProxies = trusted
	if withRedis {
		ts.opts.Redis = startRedis(t).client()
	}
	ts.Server = New(ts.opts)
	ts.Store().Reload()
	send := func(xff string) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/status", nil)
		req.RemoteAddr = "10.1.2.3:5555"
		req.Header.Set("X-Forwarded-For", xff)
		rec := httptest.NewRecorder()
		ts.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	// The limit is 2 a minute: the third request of one client is refused,
	// while another client behind the same proxy is not.
	for i, want := range []int{200, 200, 429} {
		if got := send("203.0.113.1"); got != want {
			t.Fatalf("request %d of a client behind the proxy: %d, want %d", i+1, got, want)
		}
	}
	if got := send("203.0.113.2"); got != 200 {
		t.Fatalf("a second client behind the same proxy: %d, want 200", got)
	}
}

// TestAccessLog: one compact line per request when on, nothing when off.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		ts := newTestServer(t, 0)
		var buf bytes.Buffer
		ts.opts.AccessLog, ts.opts.Log = on, zerolog.New(&buf)
		ts.Server = New(ts.opts)
		ts.Store().Reload()
		ts.do(t, http.MethodGet, "/api/v1/services/openai", nil)
		ts.do(t, http.MethodGet, "/api/v1/nothing", nil)
		// A load balancer's passing health checks are not logged.
		ts.do(t, http.MethodGet, snapshot.PathHealthz, nil)
		ts.do(t, http.MethodGet, snapshot.PathReadyz, nil)
		// The recorders are pooled: a reused one starts from nothing.
		ts.do(t, http.MethodGet, "/api/v1/services/openai", nil)
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if !on {
			if buf.Len() != 0 {
				t.Errorf("access log off, but logged: %s", buf.String())
			}
			continue
		}
		if len(lines) != 3 || !strings.Contains(lines[0], `"path":"/api/v1/services/openai"`) || !strings.Contains(lines[0], `"status":200`) ||
			!strings.Contains(lines[1], `"status":404`) || !strings.Contains(lines[1], `"client":"192.0.2.1"`) {
			t.Fatalf("access log lines: %q", lines)
		}
		type line struct {
			Status, Bytes int
			Us            *int64 // the duration, in microseconds
		}
		var first, again line
		if json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[2]), &again) != nil ||
			first.Bytes == 0 || again.Status != 200 || again.Bytes != first.Bytes || again.Us == nil {
			t.Errorf("the same request logged as %q, then as %q", lines[0], lines[2])
		}
		// A failing one is: the replica is taken out, and the log says when.
		buf.Reset()
		notReady := New(ts.opts) // no snapshot loaded yet
		rec := httptest.NewRecorder()
		notReady.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, snapshot.PathReadyz, nil))
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(buf.String(), `"path":"/readyz","status":503`) {
			t.Errorf("/readyz before the first snapshot: %d, logged %q", rec.Code, buf.String())
		}
	}
}

// /sources: every service's sources in one document, validated against the
// contract like every API response.
func TestSources(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	var doc api.SourcesDoc
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, snapshot.PathSources, nil)), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Services) != len(ts.cat.Services) || doc.License != api.License {
		t.Fatalf("%d services, licence %q", len(doc.Services), doc.License)
	}
	by := map[string]api.ServiceSources{}
	for _, s := range doc.Services {
		by[s.Slug] = s
	}
	if d := by["cohere"].Disagreement; d == nil || d.Official != api.Operational || by["cohere"].Status != api.MajorOutage {
		t.Errorf("cohere: %+v", by["cohere"])
	}
	if f := by["mistral"].Feed; f.State != api.FeedNone || f.Note == "" {
		t.Errorf("mistral feed: %+v", f)
	}
}

// TestAccessLogSamplesRejections: a flood of 429s from clients past their
// budget is logged rejectedLogBurst lines a second, and the rest of that
// second's are counted in one line.
func TestAccessLogSamplesRejections(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 1)
	var buf bytes.Buffer
	ts.opts.AccessLog, ts.opts.Log = true, zerolog.New(&buf)
	ts.Server = New(ts.opts)
	ts.Store().Reload()
	for range 50 {
		ts.do(t, http.MethodGet, snapshot.PathStatus, nil)
	}
	count := func(s string) int { return strings.Count(buf.String(), s) }
	if ok, limited := count(`"status":200`), count(`"status":429,"bytes"`); ok != 1 || limited != rejectedLogBurst {
		t.Fatalf("50 requests, 49 of them past the budget: %d lines of 200 and %d of 429 logged, want 1 and %d", ok, limited, rejectedLogBurst)
	}
	ts.clock.Set(ts.clock.Now().Add(1500 * time.Millisecond))
	ts.do(t, http.MethodGet, snapshot.PathStatus, nil) // the next second's first 429
	if !strings.Contains(buf.String(), fmt.Sprintf(`"status":429,"notLogged":%d`, 49-rejectedLogBurst)) || count(`"status":429,"bytes"`) != rejectedLogBurst+1 {
		t.Errorf("the next second: %s", buf.String())
	}
}

// TestAPIIndex: /api/v1/ and /api/v1 answer the index, whose every
// endpoint answers (its templates filled in), while a path under /api/v1/
// that is no endpoint is still a 404.
func TestAPIIndex(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	slashed := ts.do(t, http.MethodGet, snapshot.PathAPIIndex, nil)
	data := body(t, slashed)
	bare := ts.do(t, http.MethodGet, snapshot.APIBase, nil)
	if slashed.StatusCode != http.StatusOK || bare.StatusCode != http.StatusOK || !bytes.Equal(body(t, bare), data) {
		t.Fatalf("/api/v1/: %d, /api/v1: %d", slashed.StatusCode, bare.StatusCode)
	}
	var index api.APIIndex
	if err := json.Unmarshal(data, &index); err != nil || len(index.Endpoints) == 0 {
		t.Fatalf("index %v: %s", err, data)
	}
	at := genTime.Add(30 * time.Second).Format(time.RFC3339)
	for _, e := range index.Endpoints {
		target, ok := strings.CutPrefix(e.Href, "https://aistatus.example")
		if !ok {
			t.Errorf("%s: href %s not under the base URL", e.OperationID, e.Href)
			continue
		}
		target = strings.NewReplacer(snapshot.SlugParam, "openai", snapshot.TimeParam, at,
			snapshot.AuthorParam, "anthropic", snapshot.ModelNameParam, "claude-sonnet-4.5").Replace(target)
		switch e.OperationID {
		case "check":
			target += "?q=openai"
		case "getFallbacks":
			target += "?model=anthropic/claude-sonnet-4.5"
		case "streamEvents":
			continue // a stream: events_test.go
		}
		if resp := ts.do(t, http.MethodGet, target, nil); resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s: %d", e.OperationID, target, resp.StatusCode)
		} else if resp.StatusCode == http.StatusNotFound && !strings.Contains(target, "/at/") {
			t.Errorf("%s %s: 404", e.OperationID, target)
		}
	}
	if resp := ts.do(t, http.MethodGet, snapshot.PathAPIIndex+"nothing", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/api/v1/nothing: %d, want 404", resp.StatusCode)
	}
}
