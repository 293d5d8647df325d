package serve

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// contractBase is the server the contract's description is rendered for;
// requests are rewritten to it so that the router matches them.
const contractBase = "http://example.test"

var (
	contractOnce   sync.Once
	contractRouter *contractRoutes
	contractErr    error
)

// contractLoad parses the OpenAPI description once, validates it and
// builds its router.
func contractLoad() (*contractRoutes, error) {
	contractOnce.Do(func() {
		data, err := build.OpenAPI(contractBase, 0) // the number of services is only text
		if err != nil {
			contractErr = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err != nil {
			contractErr = fmt.Errorf("load: %w", err)
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contractErr = fmt.Errorf("validate: %w", err)
			return
		}
		if contractRouter, err = newContractRoutes(doc); err != nil {
			contractErr = fmt.Errorf("router: %w", err)
			return
		}
		// kin-openapi registers the JSON and CSV decoders itself (v0.152.0,
		// and reads a "+json" type as JSON); make sure of it without
		// replacing its own. The other files' bodies are text to it.
		if openapi3filter.RegisteredBodyDecoder(snapshot.ContentProblem) == nil {
			openapi3filter.RegisterBodyDecoder(snapshot.ContentProblem, openapi3filter.JSONBodyDecoder)
		}
		for _, text := range []string{"text/csv", "text/calendar", "image/svg+xml", snapshot.ContentAtom, snapshot.ContentNDJSON} {
			if openapi3filter.RegisteredBodyDecoder(text) == nil {
				openapi3filter.RegisterBodyDecoder(text, openapi3filter.PlainBodyDecoder)
			}
		}
	})
	return contractRouter, contractErr
}

// contractRoutes finds the operation of a request in the description. Not
// kin-openapi's routers: the legacy one reads only the document's servers
// (the paths outside the API have servers of their own, the site's root)
// and matches no parameter with a suffix (/badges/{badge}.svg), and the
// gorillamux one would add github.com/gorilla/mux to go.mod.
type contractRoutes struct {
	routes []contractRoute
}

type contractRoute struct {
	// pattern matches the request path: the path's server's path, then
	// the path with each {placeholder} one segment or part of one.
	pattern *regexp.Regexp
	names   []string
	// literal is the length of the path's fixed text: of two patterns that
	// match, the one with more is the more specific.
	literal int
	route   *routers.Route
}

func newContractRoutes(doc *openapi3.T) (*contractRoutes, error) {
	var rs contractRoutes
	for path, item := range doc.Paths.Map() {
		servers := item.Servers
		if len(servers) == 0 {
			servers = doc.Servers
		}
		if len(servers) == 0 {
			return nil, fmt.Errorf("%s: no server", path)
		}
		base, err := url.Parse(servers[0].URL)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		full := strings.TrimSuffix(base.Path, "/") + path
		var names []string
		for _, m := range placeholder.FindAllString(regexp.QuoteMeta(full), -1) {
			names = append(names, strings.Trim(m, `\{}`))
		}
		pattern := regexp.MustCompile("^" + placeholder.ReplaceAllString(regexp.QuoteMeta(full), "([^/]+)") + "$")
		literal := len(placeholder.ReplaceAllString(regexp.QuoteMeta(full), ""))
		for method, op := range item.Operations() {
			rs.routes = append(rs.routes, contractRoute{pattern: pattern, names: names, literal: literal,
				route: &routers.Route{Spec: doc, Server: servers[0], Path: path, PathItem: item, Method: method, Operation: op}})
		}
	}
	return &rs, nil
}

// FindRoute is the operation of r and its path parameters.
func (rs *contractRoutes) FindRoute(r *http.Request) (*routers.Route, map[string]string, error) {
	var best *contractRoute
	var values []string
	for i, rt := range rs.routes {
		if rt.route.Method != r.Method {
			continue
		}
		if m := rt.pattern.FindStringSubmatch(r.URL.Path); m != nil && (best == nil || rt.literal > best.literal) {
			best, values = &rs.routes[i], m[1:]
		}
	}
	if best == nil {
		return nil, nil, fmt.Errorf("no operation for %s %s", r.Method, r.URL.Path)
	}
	params := map[string]string{}
	for i, name := range best.names {
		params[name] = values[i]
	}
	return best.route, params, nil
}

// contractDescribes reports whether the description has an operation for
// a GET of path: a file outside the API's routes is validated when it is.
func contractDescribes(path string) bool {
	router, err := contractLoad()
	if err != nil {
		return false
	}
	_, _, err = router.FindRoute(&http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}})
	return err == nil
}

// assertContract fails t unless the response to req (status, headers, body) is
// valid for that operation in the OpenAPI description (uses
// openapi3filter.ValidateRequest + ValidateResponse with a gorillamux or legacy
// router from kin-openapi built from build.OpenAPI("http://example.test"));
// the request's URL host/scheme should be rewritten to http://example.test so
// the router matches. Cache the parsed document and router with sync.Once.
//
// Any status below 500 must be listed for the operation (the default
// response stands for unexpected 5xx only). A request that breaks the
// description itself (a bad slug, limit=0, a missing q) must be answered with
// one of the operation's documented 4xx statuses. A gzip-encoded body is decompressed first. A HEAD request is
// checked as the GET it mirrors, headers only. A problem body's status must
// be the response's.
func assertContract(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	router, err := contractLoad()
	if err != nil {
		t.Fatalf("contract: OpenAPI description: %v", err)
		return
	}
	ctx := context.Background()
	what := fmt.Sprintf("%s %s → %d", req.Method, req.URL.RequestURI(), status)

	r := req.Clone(ctx)
	u := *req.URL
	u.Scheme, u.Host = "http", "example.test"
	// The older ?at= of /status and /services/{slug} is an alias of the
	// point-in-time paths, left out of the description so that getStatus
	// and getService have one response schema each: it is checked as the
	// path form, which answers the same.
	if q := u.Query(); q.Get("at") != "" && (u.Path == snapshot.PathStatus || strings.HasPrefix(u.Path, snapshot.APIBase+"/services/")) {
		u.Path += "/at/" + q.Get("at")
		q.Del("at")
		u.RawPath, u.RawQuery = "", q.Encode()
	}
	r.URL, r.Host, r.RequestURI = &u, u.Host, ""
	head := r.Method == http.MethodHead
	if head {
		r.Method = http.MethodGet
	}
	route, pathParams, err := router.FindRoute(r)
	if err != nil {
		t.Errorf("contract: %s: not an operation of the OpenAPI description: %v", what, err)
		return
	}
	op := route.Operation

	reqInput := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: pathParams,
		Route:      route,
		Options:    &openapi3filter.Options{SkipSettingDefaults: true, MultiError: true},
	}
	// The default response stands for unexpected failures (5xx) only: any
	// other status must be listed for the operation.
	if status < 500 && op.Responses.Status(status) == nil {
		t.Errorf("contract: %s (%s): status %d is not documented for this operation", what, op.OperationID, status)
		return
	}
	if reqErr := openapi3filter.ValidateRequest(ctx, reqInput); reqErr != nil {
		if status < 400 || status > 499 {
			t.Errorf("contract: %s (%s): the request breaks the description (%v), so the answer must be a documented 4xx",
				what, op.OperationID, reqErr)
			return
		}
	}

	if header.Get("Content-Encoding") == "gzip" && len(body) > 0 {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Errorf("contract: %s (%s): Content-Encoding gzip but the body does not decompress: %v", what, op.OperationID, err)
			return
		}
	}
	if status == http.StatusNotModified && len(body) > 0 {
		t.Errorf("contract: %s (%s): a 304 must have no body, got %d bytes", what, op.OperationID, len(body))
	}

	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			MultiError:            true,
			ExcludeResponseBody:   head,
		},
	}
	if err := openapi3filter.ValidateResponse(ctx, respInput); err != nil {
		t.Errorf("contract: %s (%s): the response breaks the description: %v\nheaders: %v\nbody: %s",
			what, op.OperationID, err, header, contractExcerpt(body))
		return
	}

	if !head && strings.HasPrefix(header.Get("Content-Type"), snapshot.ContentProblem) {
		var p struct{ Status int }
		if err := json.Unmarshal(body, &p); err == nil && p.Status != status {
			t.Errorf("contract: %s (%s): problem status %d, response status %d", what, op.OperationID, p.Status, status)
		}
	}
}

func contractExcerpt(body []byte) string {
	const max = 2000
	if len(body) > max {
		return string(body[:max]) + "…"
	}
	return string(body)
}

// contractStub is a testing.TB that records failures instead of failing the
// test, to observe assertContract itself.
type contractStub struct {
	testing.TB
	failed bool
	msgs   []string
}

func (s *contractStub) Helper() {}
func (s *contractStub) Errorf(format string, args ...any) {
	s.failed = true
	s.msgs = append(s.msgs, fmt.Sprintf(format, args...))
}
func (s *contractStub) Error(args ...any) { s.Errorf("%s", fmt.Sprint(args...)) }
func (s *contractStub) Fatalf(format string, args ...any) {
	s.Errorf(format, args...)
	runtime.Goexit()
}
func (s *contractStub) Fatal(args ...any)               { s.Error(args...); runtime.Goexit() }
func (s *contractStub) Fail()                           { s.failed = true }
func (s *contractStub) FailNow()                        { s.failed = true; runtime.Goexit() }
func (s *contractStub) Failed() bool                    { return s.failed }
func (s *contractStub) Log(args ...any)                 {}
func (s *contractStub) Logf(format string, args ...any) {}

// contractRun runs assertContract against a stub and reports whether it
// failed, and why.
func contractRun(t *testing.T, req *http.Request, status int, header http.Header, body []byte) (bool, string) {
	stub := &contractStub{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		assertContract(stub, req, status, header, body)
	}()
	<-done
	return stub.failed, strings.Join(stub.msgs, "\n")
}

// contractHeaders are the headers of a successful response from the server.
func contractHeaders(contentType string) http.Header {
	h := http.Header{}
	for _, ch := range snapshot.CommonHeaders() {
		h.Set(ch.Name, ch.Value)
	}
	h.Set("Content-Type", contentType)
	h.Set("ETag", `"abc123"`)
	h.Set("RateLimit-Policy", `"free";q=30;w=60`)
	h.Set("RateLimit", `"free";r=29;t=60`)
	h.Set("Access-Control-Expose-Headers", snapshot.ExposeHeaders)
	return h
}

func contractProblemHeaders(status int) http.Header {
	h := http.Header{}
	for _, ch := range snapshot.CommonHeaders() {
		h.Set(ch.Name, ch.Value)
	}
	h.Set("Content-Type", snapshot.ContentProblem)
	if status == http.StatusTooManyRequests {
		h.Set("Cache-Control", "no-store")
		h.Set("Retry-After", "12")
		h.Set("RateLimit-Policy", `"free";q=30;w=60`)
		h.Set("RateLimit", `"free";r=0;t=12`)
		h.Set("Access-Control-Expose-Headers", snapshot.ExposeHeaders)
	}
	return h
}

func contractProblem(status int, param string) []byte {
	data, _ := json.Marshal(api.Problem{Type: "about:blank", Title: http.StatusText(status), Status: status,
		Detail: "something is wrong", Param: param})
	return append(data, '\n')
}

func contractStatusBody(t *testing.T, edit func(map[string]any)) []byte {
	now := time.Date(2025, 1, 31, 12, 0, 0, 0, time.UTC)
	lat := 87.5
	doc := api.StatusDoc{
		Status: "ok", Timestamp: now, Source: "aistatus (http://example.test)", License: api.License,
		Services: []api.ServiceSummary{{
			Slug: "openai", Name: "OpenAI", Category: "llm-api", Domain: "openai.com", Status: api.Operational, Basis: api.BasisOfficial,
			LastChecked: &now, URL: "https://openai.com", StatusPage: "https://status.openai.com", LatencyMs: &lat, Feed: api.FeedOK,
			Surfaces: []api.SurfaceSummary{{ID: catalog.SurfaceAPI, Name: "OpenAI API", Status: api.Operational,
				Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}}},
		}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var m map[string]any
		json.Unmarshal(data, &m)
		edit(m)
		data, _ = json.Marshal(m)
	}
	return append(data, '\n')
}

func TestContractHelperAcceptsAndRejects(t *testing.T) {
	t.Parallel()
	valid := contractStatusBody(t, nil)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(valid)
	zw.Close()
	gzHeader := contractHeaders(snapshot.ContentJSON)
	gzHeader.Set("Content-Encoding", "gzip")
	noLicense := contractHeaders(snapshot.ContentJSON)
	noLicense.Del("License")
	tooManyNoRetry := contractProblemHeaders(http.StatusTooManyRequests)
	tooManyNoRetry.Del("Retry-After")
	untracked, _ := json.Marshal(api.CheckDoc{
		OtherSurfaces: []api.CheckOtherSurface{},
		Query:         "example.com", Timestamp: time.Now().UTC(), License: api.License,
		Verdict: api.Verdict{Headline: `"example.com" is not a service aistatus tracks`, Emoji: "❓",
			Level: "untracked", Suggestions: []string{"OpenAI"}, Evidence: []api.Evidence{}, Alternatives: []api.CheckAlternative{}},
	})
	csvBody := []byte("slug,name,category,domain,status,lastChecked\nopenai,OpenAI,llm-api,openai.com,operational,2025-01-31T12:00:00Z\n")
	feed := []byte(`{"version":"https://jsonfeed.org/version/1.1","title":"aistatus: OpenAI","items":[]}`)

	for _, c := range []struct {
		name     string
		method   string
		target   string
		status   int
		header   http.Header
		body     []byte
		wantFail bool
	}{
		{"valid status", "GET", "/api/v1/status", 200, contractHeaders(snapshot.ContentJSON), valid, false},
		{"absolute URL elsewhere", "GET", "https://aistatus.example/api/v1/status", 200, contractHeaders(snapshot.ContentJSON), valid, false},
		{"gzip status", "GET", "/api/v1/status", 200, gzHeader, gz.Bytes(), false},
		{"HEAD status", "HEAD", "/api/v1/status", 200, contractHeaders(snapshot.ContentJSON), nil, false},
		{"not modified", "GET", "/api/v1/status", 304, http.Header{"Etag": {`"abc123"`}}, nil, false},
		{"rate limited", "GET", "/api/v1/status", 429, contractProblemHeaders(429), contractProblem(429, ""), false},
		{"untracked check", "GET", "/api/v1/check?q=example.com", 200, contractHeaders(snapshot.ContentJSON), untracked, false},
		{"missing q", "GET", "/api/v1/check", 400, contractProblemHeaders(400), contractProblem(400, "q"), false},
		{"bad limit", "GET", "/api/v1/incidents?limit=0", 400, contractProblemHeaders(400), contractProblem(400, "limit"), false},
		{"bad slug", "GET", "/api/v1/services/Not_A_Slug", 404, contractProblemHeaders(404), contractProblem(404, "slug"), false},
		{"export", "GET", "/api/v1/export", 200, contractHeaders(snapshot.ContentCSV), csvBody, false},
		{"no snapshot yet", "GET", "/api/v1/status", 503, contractProblemHeaders(503), contractProblem(503, ""), false},
		{"metrics, at the site's root", "GET", "/metrics", 200, contractHeaders(snapshot.ContentMetrics), []byte("# HELP x y\n"), false},
		{"a badge: a parameter with a suffix", "GET", "/badges/openai-uptime.svg", 200, contractHeaders("image/svg+xml"), []byte("<svg/>"), false},
		{"a service's feed, not its document", "GET", "/services/openai.feed.json", 200, contractHeaders(snapshot.ContentJSONFeed), feed, false},

		{"missing services", "GET", "/api/v1/status", 200, contractHeaders(snapshot.ContentJSON),
			contractStatusBody(t, func(m map[string]any) { delete(m, "services") }), true},
		{"bad status value", "GET", "/api/v1/status", 200, contractHeaders(snapshot.ContentJSON),
			contractStatusBody(t, func(m map[string]any) { m["services"].([]any)[0].(map[string]any)["status"] = "down" }), true},
		{"no License header", "GET", "/api/v1/status", 200, noLicense, valid, true},
		{"wrong content type", "GET", "/api/v1/status", 200, contractHeaders("text/html"), valid, true},
		{"429 without Retry-After", "GET", "/api/v1/status", 429, tooManyNoRetry, contractProblem(429, ""), true},
		{"problem status mismatch", "GET", "/api/v1/check", 400, contractProblemHeaders(400), contractProblem(404, "q"), true},
		{"invalid request answered 200", "GET", "/api/v1/incidents?limit=5000", 200, contractHeaders(snapshot.ContentJSON), valid, true},
		{"undocumented 404", "GET", "/api/v1/check?q=x", 404, contractProblemHeaders(404), contractProblem(404, ""), true},
		{"not an operation", "GET", "/api/v1/nope", 404, contractProblemHeaders(404), contractProblem(404, ""), true},
		{"export with the wrong header", "GET", "/api/v1/export", 200, contractHeaders(snapshot.ContentCSV), []byte("name,slug\n"), true},
		{"304 with a body", "GET", "/api/v1/status", 304, http.Header{}, valid, true},
		{"metrics under the API's base", "GET", "/api/v1/metrics", 200, contractHeaders(snapshot.ContentMetrics), []byte("# HELP x y\n"), true},
		{"a feed that is not one", "GET", "/services/openai.feed.json", 200, contractHeaders(snapshot.ContentJSONFeed), valid, true},
		{"a badge of the wrong type", "GET", "/badges/openai.svg", 200, contractHeaders(snapshot.ContentJSON), []byte("{}"), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, c.target, nil)
			failed, why := contractRun(t, req, c.status, c.header, c.body)
			if failed != c.wantFail {
				t.Errorf("assertContract failed = %v, want %v\n%s", failed, c.wantFail, why)
			}
		})
	}
}

// TestContractHelperLeavesRequestAlone checks that the caller's request is not
// rewritten or given defaults.
func TestContractHelperLeavesRequestAlone(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest("GET", "/api/v1/status", nil)
	assertContract(t, req, 200, contractHeaders(snapshot.ContentJSON), contractStatusBody(t, nil))
	if req.URL.Host != "" || req.Host != "example.com" || req.URL.RawQuery != "" {
		t.Errorf("request changed: host %q %q, query %q", req.URL.Host, req.Host, req.URL.RawQuery)
	}
}

// TestContractCoversSiteFiles: the paths the server answers outside the
// API — the Statuspage façade, /metrics, the feeds, badges, calendars, the
// open dataset, llms.txt, the API catalog, health — are operations of the
// description, and their answers (a 200, a 304, a 404 for an unknown
// service) are valid for them: ts.do validates each one it describes.
func TestContractCoversSiteFiles(t *testing.T) {
	t.Parallel()
	ts := newTestServer(t, 0)
	paths := []string{snapshot.PathMetrics, "/metrics.txt", "/incidents.atom", "/incidents.feed.json",
		"/services/anthropic.atom", "/services/anthropic.feed.json", "/maintenance.ics", "/services/anthropic.ics",
		"/badges/openai.svg", "/badges/openai-uptime.svg", "/badges/anthropic-app.json", "/badges/openai.json",
		"/llms.txt", "/.well-known/api-catalog", snapshot.PathHealthz, snapshot.PathReadyz, "/" + snapshot.FileDatasets}
	for _, f := range []string{"summary.json", "status.json", "components.json", "incidents.json", "incidents/unresolved.json",
		"scheduled-maintenances.json", "scheduled-maintenances/upcoming.json", "scheduled-maintenances/active.json"} {
		paths = append(paths, "/p/anthropic/api/v2/"+f)
	}
	var index struct {
		Files []struct{ Path string }
	}
	if err := json.Unmarshal(body(t, ts.do(t, http.MethodGet, "/"+snapshot.FileDatasets, nil)), &index); err != nil || len(index.Files) == 0 {
		t.Fatalf("the dataset's index lists %d files: %v", len(index.Files), err)
	}
	for _, f := range index.Files {
		paths = append(paths, f.Path)
	}
	for _, path := range paths {
		if !contractDescribes(path) {
			t.Errorf("GET %s: not an operation of the description", path)
			continue
		}
		resp := ts.do(t, http.MethodGet, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
			continue
		}
		if etag := resp.Header.Get("ETag"); etag != "" {
			if resp := ts.do(t, http.MethodGet, path, http.Header{"If-None-Match": {etag}}); resp.StatusCode != http.StatusNotModified {
				t.Errorf("GET %s with its ETag: %d", path, resp.StatusCode)
			}
		}
	}
	for _, path := range []string{"/services/nope.atom", "/badges/nope.svg", "/p/nope/api/v2/summary.json", "/datasets/uptime-1999-01.csv"} {
		if !contractDescribes(path) {
			t.Errorf("GET %s: not an operation of the description", path)
		}
		if resp := ts.do(t, http.MethodGet, path, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
}
