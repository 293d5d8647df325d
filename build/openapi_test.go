package build

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/site"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

const openapiTestBase = "https://aistatus.example"

// openapiTestServices is the number of services the tests' description
// states: any number will do, the text only carries it (Render writes the
// catalog's in).
const openapiTestServices = 7

// openapiLoad renders the description for openapiTestBase, parses and
// validates it: once for the package, whose tests only read it (parsing is
// a tenth of a second under the race detector, and nine tests ask).
func openapiLoad(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapiLoaded()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var openapiLoaded = sync.OnceValues(func() (*openapi3.T, error) {
	data, err := OpenAPI(openapiTestBase, openapiTestServices)
	if err != nil {
		return nil, fmt.Errorf("OpenAPI: %w", err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return doc, nil
})

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)

	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if doc.Info.Title != "aistatus" || doc.Info.Version != "1.0.0" {
		t.Errorf("info = %q %q, want aistatus 1.0.0", doc.Info.Title, doc.Info.Version)
	}
	if l := doc.Info.License; l == nil || l.Name != api.License || l.URL != api.LicenseURL {
		t.Errorf("info.license = %+v, want %s %s", l, api.License, api.LicenseURL)
	}
	for _, want := range []string{fmt.Sprintf("%d AI services", openapiTestServices), "unknown", "15 minutes", "30%", "30 requests per minute", "/64", "never fetches", "ignore unknown fields", "RFC 9457"} {
		if !strings.Contains(doc.Info.Description, want) {
			t.Errorf("info.description does not state %q", want)
		}
	}
	if len(doc.Servers) == 0 || doc.Servers[0].URL != openapiTestBase+"/api/v1" {
		t.Fatalf("servers = %+v, want url %s/api/v1", doc.Servers, openapiTestBase)
	}

	wantOps := map[string]string{
		"/status":                    "getStatus",
		"/services/{slug}":           "getService",
		"/services/{slug}/history":   "getServiceHistory",
		"/incidents":                 "listIncidents",
		"/check":                     "check",
		"/openapi.json":              "openapi",
		"/export":                    "export",
		"/sources":                   "listSources",
		"/reliability":               "listReliability",
		"/situation":                 "getSituation",
		"/changes":                   "listChanges",
		"/events":                    "streamEvents",
		"/":                          "getIndex",
		"/status/at/{time}":          "getStatusAt",
		"/services/{slug}/at/{time}": "getServiceAt",
		"/models":                    "listModels",
		"/models/{author}/{model}":   "getModel",
		"/models/retirements":        "listModelRetirements",
		"/models/retirements.ics":    "getModelRetirementsCalendar",
		"/statusline":                "getStatusline",
		"/fallbacks":                 "getFallbacks",
	}
	// Every API route of the table is an operation, and only those: a route
	// added without its description fails here.
	for _, rt := range snapshot.Routes() {
		if p, ok := strings.CutPrefix(rt.Path, snapshot.APIBase); ok && wantOps[p] == "" {
			t.Errorf("route %s has no operation in openapi.json (and none here)", rt.Path)
		}
	}
	if paths := openapiAPIPaths(doc); len(paths) != len(wantOps) {
		t.Errorf("%d paths under the API's server, want %d", len(paths), len(wantOps))
	}
	for path, id := range wantOps {
		item := doc.Paths.Value(path)
		if item == nil {
			t.Errorf("path %s missing", path)
			continue
		}
		if ops := item.Operations(); len(ops) != 1 || item.Get == nil {
			t.Errorf("%s: operations %v, want GET only", path, slices.Collect(maps.Keys(ops)))
			continue
		}
		op := item.Get
		if op.OperationID != id {
			t.Errorf("%s: operationId %q, want %q", path, op.OperationID, id)
		}
		// A stream is never revalidated and has no entity tag.
		stream := path == "/events"
		for _, code := range []int{200, 304, 429} {
			if code == 304 && stream {
				continue
			}
			if op.Responses.Status(code) == nil {
				t.Errorf("%s: no %d response", path, code)
			}
		}
		ok := op.Responses.Status(200).Value
		for _, h := range []string{"License", "Cache-Control", "Access-Control-Allow-Origin", "ETag", "RateLimit", "RateLimit-Policy"} {
			if ok.Headers[h] == nil && !(stream && h == "ETag") {
				t.Errorf("%s: 200 does not declare header %s", path, h)
			}
		}
		tooMany := op.Responses.Status(429).Value
		for _, h := range []string{"Retry-After", "RateLimit", "RateLimit-Policy", "Cache-Control"} {
			// A stream's 429 may be its client's stream cap, with request
			// quota left: the rate-limit headers are there, not exhausted.
			optional := stream && strings.HasPrefix(h, "RateLimit")
			if hdr := tooMany.Headers[h]; hdr == nil || !(hdr.Value.Required || optional) {
				t.Errorf("%s: 429 does not require header %s", path, h)
			}
		}
		// A route that answers plain text (the statusline, printed by a
		// prompt) refuses in a line of text too; the others with a problem.
		refusal, schema := snapshot.ContentProblem, "#/components/schemas/Problem"
		if ok.Content.Get(snapshot.ContentText) != nil {
			refusal, schema = snapshot.ContentText, "#/components/schemas/TextLine"
		}
		if mt := tooMany.Content.Get(refusal); mt == nil || mt.Schema.Ref != schema {
			t.Errorf("%s: 429 body is not a %s", path, schema)
		}
		if len(op.Parameters) > 0 {
			bad := op.Responses.Status(400)
			if bad == nil || bad.Value.Content.Get(refusal) == nil {
				t.Errorf("%s: has parameters but no 400 %s response", path, refusal)
			}
		}
		for _, p := range op.Parameters {
			s := p.Value.Schema.Value
			if s.Type.Is("string") && s.MaxLength == nil && len(s.Enum) == 0 {
				t.Errorf("%s: parameter %s has no maxLength", path, p.Value.Name)
			}
		}
	}
	if doc.Paths.Value("/services/{slug}").Get.Responses.Status(404) == nil {
		t.Error("getService: no 404 response")
	}

	slug := doc.Paths.Value("/services/{slug}").Get.Parameters.GetByInAndName("path", "slug")
	if slug == nil || !slug.Required || slug.Schema.Value.Pattern != `^[a-z0-9]+(-[a-z0-9]+)*$` ||
		slug.Schema.Value.MaxLength == nil || *slug.Schema.Value.MaxLength != 64 {
		t.Errorf("getService slug parameter = %+v", slug)
	}

	incidents := doc.Paths.Value("/incidents").Get
	if n := len(incidents.Parameters); n != 4 {
		t.Errorf("/incidents has %d parameters, want 4", n)
	}
	since := incidents.Parameters.GetByInAndName("query", "since")
	if since == nil || since.Schema.Value.Format != "" || since.Schema.Value.MaxLength == nil || *since.Schema.Value.MaxLength != 64 {
		t.Errorf("since = %+v, want a string of at most 64 characters without format", since)
	} else if !strings.Contains(since.Description, "RFC 3339") || !strings.Contains(since.Description, "YYYY-MM-DD") {
		t.Errorf("since does not document both forms: %q", since.Description)
	}
	severity := incidents.Parameters.GetByInAndName("query", "severity")
	if severity == nil || !reflect.DeepEqual(severity.Schema.Value.Enum, openapiAny(api.Severities)) {
		t.Errorf("severity enum = %v, want %v", severity.Schema.Value.Enum, api.Severities)
	}
	if service := incidents.Parameters.GetByInAndName("query", "service"); service == nil ||
		service.Schema.Value.Pattern == "" || service.Schema.Value.MaxLength == nil {
		t.Errorf("service parameter = %+v", service)
	}
	limit := incidents.Parameters.GetByInAndName("query", "limit")
	if limit == nil {
		t.Error("limit parameter missing")
	} else if s := limit.Schema.Value; !s.Type.Is("integer") || s.Min == nil || *s.Min != 1 ||
		s.Max == nil || *s.Max != 1000 || s.Default != 100.0 {
		t.Errorf("limit schema = type %v min %v max %v default %v, want integer 1..1000 default 100", s.Type, s.Min, s.Max, s.Default)
	}

	q := doc.Paths.Value("/check").Get.Parameters.GetByInAndName("query", "q")
	if q == nil || !q.Required || q.Schema.Value.MinLength != 1 || q.Schema.Value.MaxLength == nil || *q.Schema.Value.MaxLength != 256 {
		t.Errorf("q parameter = %+v, want required, 1..256 characters", q)
	}

	export := doc.Paths.Value("/export").Get
	format := export.Parameters.GetByInAndName("query", "format")
	if format == nil || !reflect.DeepEqual(format.Schema.Value.Enum, []any{"csv"}) || format.Schema.Value.Default != "csv" {
		t.Errorf("format parameter = %+v, want enum [csv] default csv", format)
	}
	csvType := export.Responses.Status(200).Value.Content.Get(snapshot.ContentCSV)
	if csvType == nil {
		t.Fatalf("export 200 has no %s content", snapshot.ContentCSV)
	}
	header := strings.Join(openapiCSVHeader(), ",")
	if header != "slug,name,category,domain,status,lastChecked" {
		t.Errorf("api.ExportRow header = %s", header)
	}
	if !strings.Contains(csvType.Schema.Value.Pattern, header) || !strings.Contains(export.Description, "`"+header+"`") {
		t.Errorf("export does not name the header %s", header)
	}
	if err := csvType.Schema.Value.VisitJSON(header + "\r\nopenai,OpenAI,llm-api,openai.com,operational,\r\n"); err != nil {
		t.Errorf("a CSV body does not match: %v", err)
	}
	if err := csvType.Schema.Value.VisitJSON("name,slug\n"); err == nil {
		t.Error("a CSV body with the wrong header matches")
	}
}

// openapiAPIPaths are the paths of the API, under servers[0] (/api/v1):
// those without servers of their own.
func openapiAPIPaths(doc *openapi3.T) []string {
	var paths []string
	for path, item := range doc.Paths.Map() {
		if len(item.Servers) == 0 {
			paths = append(paths, path)
		}
	}
	return paths
}

// openapiSiteFiles are the snapshot's files outside the API that the
// description describes, each at its own path from the site's root, named
// as the renderer names them (with the path's placeholders).
func openapiSiteFiles() []string {
	files := []string{snapshot.FileMetrics, site.FileFeed, site.FileJSONFeed, site.ServiceFeed(snapshot.SlugParam),
		site.ServiceJSONFeed(snapshot.SlugParam), site.BadgeFile("{badge}", "", "svg"), site.BadgeFile("{badge}", "", "json"),
		site.FileCalendar, site.ServiceCalendar(snapshot.SlugParam), snapshot.FileDatasets,
		history.DatasetFile(history.DatasetUptime, "{month}"), history.DatasetFile(history.DatasetIncidents, "{month}"),
		site.FileLLMs, site.FileAPICatalog}
	for _, f := range site.StatuspageFiles {
		files = append(files, site.StatuspageDir(snapshot.SlugParam)+"/"+f)
	}
	return files
}

// TestOpenAPISitePaths: every path the server answers outside the API —
// the routes of the table outside /api/v1 (/metrics, /healthz, /readyz,
// /mcp) and the files beside the API (the façade, feeds, badges,
// calendars, the dataset, llms.txt, the API catalog) — is described, with
// the site's root for its server, its one method, the media type the
// server sends and the headers of its 200; and nothing else has a server
// of its own.
func TestOpenAPISitePaths(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	type want struct {
		method, contentType string
		file                bool // a snapshot file: validated, 304 and 404
	}
	wants := map[string]want{}
	for _, f := range openapiSiteFiles() {
		wants["/"+f] = want{http.MethodGet, snapshot.ContentTypeOf(f), true}
	}
	for _, rt := range snapshot.Routes() {
		if strings.HasPrefix(rt.Path, snapshot.APIBase+"/") {
			continue
		}
		w := want{http.MethodGet, rt.ContentType, rt.File != ""}
		if rt.Path == snapshot.PathMCP {
			w.method = http.MethodPost
		}
		wants[rt.Path] = w
	}
	for path, item := range doc.Paths.Map() {
		if _, ok := wants[path]; len(item.Servers) > 0 && !ok {
			t.Errorf("%s has servers of its own, but the server answers no such file or route outside the API", path)
		}
	}
	for path, w := range wants {
		item := doc.Paths.Value(path)
		if item == nil {
			t.Errorf("%s: the server answers it, the description does not describe it", path)
			continue
		}
		if len(item.Servers) != 1 || item.Servers[0].URL != openapiTestBase {
			t.Errorf("%s: servers %+v, want the site's root %s", path, item.Servers, openapiTestBase)
		}
		ops := item.Operations()
		op := ops[w.method]
		if len(ops) != 1 || op == nil {
			t.Errorf("%s: operations %v, want %s only", path, slices.Collect(maps.Keys(ops)), w.method)
			continue
		}
		ok := op.Responses.Status(200)
		if ok == nil || len(ok.Value.Content) != 1 || ok.Value.Content[w.contentType] == nil {
			t.Errorf("%s: the 200 is not %s alone", path, w.contentType)
			continue
		}
		headers := []string{"Cache-Control"}
		if path != snapshot.PathHealthz && path != snapshot.PathReadyz {
			headers = append(headers, "License", "Access-Control-Allow-Origin")
		}
		if w.file {
			headers = append(headers, "ETag")
			for _, code := range []int{304, 404} {
				if op.Responses.Status(code) == nil {
					t.Errorf("%s: no %d response", path, code)
				}
			}
		}
		for _, h := range headers {
			if ok.Value.Headers[h] == nil {
				t.Errorf("%s: 200 does not declare header %s", path, h)
			}
		}
		if op.Responses.Default() == nil {
			t.Errorf("%s: no default response", path)
		}
	}
}

// TestOpenAPIDescribesRenderedFiles: every file a build renders at a path
// the description has outside the API is answered as described — its
// media type, and for JSON its body valid for the 200's schema — and
// every file path described is one the build renders.
func TestOpenAPIDescribesRenderedFiles(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	siteOpts, cat, h, states, now := goldenInput(t)
	// A day rolled up, for a month of the uptime dataset.
	h.Days = history.DaySeries{history.SeriesKey("service", "openai"): {{Date: "2026-10-31", Kind: "service", Subject: "openai"}}}
	files, err := Render(siteOpts, cat, h, states, now)
	if err != nil {
		t.Fatal(err)
	}
	templates := map[string]*regexp.Regexp{}
	for path, item := range doc.Paths.Map() {
		if len(item.Servers) > 0 && item.Get != nil {
			templates[path] = openapiPathPattern(path)
		}
	}
	rendered := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		var described []string
		for path, re := range templates {
			if re.MatchString("/" + name) {
				described = append(described, path)
			}
		}
		if len(described) > 1 {
			t.Errorf("%s: ambiguous, described by %v", name, described)
		}
		if len(described) != 1 {
			continue
		}
		rendered[described[0]]++
		contentType := snapshot.ContentTypeOf(name)
		media := doc.Paths.Value(described[0]).Get.Responses.Status(200).Value.Content[contentType]
		if media == nil {
			t.Errorf("%s: %s is not the media type %s describes", name, contentType, described[0])
			continue
		}
		if mt, _, _ := strings.Cut(contentType, ";"); mt != snapshot.ContentJSON && !strings.HasSuffix(mt, "+json") {
			continue
		}
		var v any
		if err := json.Unmarshal(files[name], &v); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := media.Schema.Value.VisitJSON(v); err != nil {
			t.Errorf("%s does not match the schema of %s: %v", name, described[0], err)
		}
	}
	for _, f := range openapiSiteFiles() {
		if rendered["/"+f] == 0 {
			t.Errorf("/%s is described, but the build rendered no such file", f)
		}
	}
}

// openapiPathPattern matches the paths a path template of the description
// stands for: each {placeholder} is one segment, or part of one.
func openapiPathPattern(template string) *regexp.Regexp {
	quoted := regexp.QuoteMeta(template)
	return regexp.MustCompile("^" + regexp.MustCompile(`\\\{[a-z]+\\\}`).ReplaceAllString(quoted, "[^/]+") + "$")
}

// TestOpenAPIEnums checks that the enums of the description are the Go
// package's lists, in the same order. FeedFormat is checked with the rest
// of the table of formats, by feed's TestFormats.
func TestOpenAPIEnums(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	schemas := doc.Components.Schemas
	// The point-in-time read's cap, the one bound of a list the code states.
	if at := schemas["ServiceAt"]; at == nil || at.Value.Properties["incidents"].Value.MaxItems == nil ||
		*at.Value.Properties["incidents"].Value.MaxItems != uint64(api.MaxIncidentsAt) {
		t.Errorf("ServiceAt.incidents.maxItems is not api.MaxIncidentsAt (%d)", api.MaxIncidentsAt)
	}
	enum := func(name string) []any {
		t.Helper()
		ref := schemas[name]
		if ref == nil {
			t.Fatalf("schema %s missing", name)
		}
		return ref.Value.Enum
	}
	for name, want := range map[string][]any{
		"Status":      openapiAny(api.Statuses),
		"CheckStatus": openapiAny(api.Statuses),
		"Basis":       openapiAny(api.Bases),
		"CheckBasis":  openapiAny(api.Bases),
		"Severity":    openapiAny(api.Severities),
		"Category":    openapiAny(catalog.Categories),
		"FailureKind": openapiAny(api.FailureKinds),
		"ChangeType":  openapiAny(api.ChangeTypes),
		"License":     {api.License},
	} {
		if got := enum(name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s enum = %v, want %v", name, got, want)
		}
	}
	for _, c := range []struct {
		schema, prop string
		want         []any
	}{
		{"Verdict", "level", openapiAny(api.VerdictLevels)},
		{"Verdict", "action", openapiAny(api.VerdictActions)},
		{"Verdict", "blame", openapiAny(api.VerdictBlames)},
		{"Verdict", "confidence", openapiAny(api.VerdictConfidences)},
		{"ResumeCondition", "condition", openapiAny(api.ResumeConditions)},
		{"Evidence", "source", openapiAny(api.EvidenceSources)},
		{"FeedSource", "state", []any{api.FeedOK, api.FeedError, api.FeedUnsupported, api.FeedNone}},
		{"ProbeSource", "state", []any{api.ProbeOK, api.ProbeFailed, api.ProbeNone, api.ProbeDiscarded}},
		{"Incident", "source", []any{api.SourceOfficial, api.SourceProbe}},
		{"Vantages", "reading", openapiAny(api.VantageReadings)},
		{"VantagePoint", "state", []any{api.ProbeOK, api.ProbeFailed}},
		{"VantageSource", "state", openapiAny(api.VantageSourceStates)},
	} {
		if got := schemas[c.schema].Value.Properties[c.prop].Value.Enum; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.%s enum = %v, want %v", c.schema, c.prop, got, c.want)
		}
	}
	if !strings.Contains(schemas["Status"].Value.Description, "could not tell") ||
		!strings.Contains(schemas["Status"].Value.Description, "never an outage") {
		t.Error("Status does not explain unknown")
	}
	uptime := schemas["Uptime"].Value.Description
	for _, want := range []string{"15 minutes", "maintenance", "30%", "100%", "rounded down to 3 decimals", "null"} {
		if !strings.Contains(uptime, want) {
			t.Errorf("Uptime description does not state %q", want)
		}
	}
}

// TestOpenAPIToolFriendly checks the rules that code generators, validating
// proxies and linters of OpenAPI 3.0 rely on, beyond what kin-openapi
// validates (.ci/openapi.sh runs the tools themselves).
func TestOpenAPIToolFriendly(t *testing.T) {
	t.Parallel()
	var doc map[string]any
	if err := json.Unmarshal(openapiDocument, &doc); err != nil {
		t.Fatal(err)
	}
	// No authentication, declared: an empty list, not an absent one.
	if sec, ok := doc["security"].([]any); !ok || len(sec) != 0 {
		t.Errorf("security = %v, want an explicit []", doc["security"])
	}

	// `nullable` only counts beside a `type` in the same schema object.
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["nullable"] == true {
				if _, ok := v["type"]; !ok {
					t.Errorf("%s: nullable without type", at)
				}
				for _, k := range []string{"allOf", "oneOf", "anyOf", "$ref"} {
					if _, ok := v[k]; ok {
						t.Errorf("%s: nullable beside %s has no effect", at, k)
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(at+"/"+k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s/%d", at, i), e)
			}
		}
	}
	walk("#", doc)

	// oapi-codegen names an operation's client wrapper <OperationId>Response
	// and its parameters <OperationId>Params: no component may take those.
	loaded := openapiLoad(t)
	tags := map[string]bool{}
	for _, tag := range loaded.Tags {
		tags[tag.Name] = true
	}
	for path, item := range loaded.Paths.Map() {
		for _, op := range item.Operations() {
			id := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:]
			for _, clash := range []string{id + "Response", id + "Params", id} {
				if loaded.Components.Schemas[clash] != nil {
					t.Errorf("%s: component schema %s clashes with the code generated for operation %s", path, clash, op.OperationID)
				}
			}
			if len(op.Tags) == 0 {
				t.Errorf("%s: operation %s has no tag", path, op.OperationID)
			}
			for _, tag := range op.Tags {
				if !tags[tag] {
					t.Errorf("%s: tag %q is not declared in tags", path, tag)
				}
			}
		}
	}
}

func TestOpenAPIServerURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ base, want string }{
		{"https://aistatus.example", "https://aistatus.example/api/v1"},
		{"https://aistatus.example/", "https://aistatus.example/api/v1"},
		{"http://localhost:8080", "http://localhost:8080/api/v1"},
		{"https://example.org/mirror", "https://example.org/mirror/api/v1"},
		{"", "/api/v1"},
	} {
		data, err := OpenAPI(c.base, openapiTestServices)
		if err != nil {
			t.Errorf("OpenAPI(%q): %v", c.base, err)
			continue
		}
		var doc struct {
			Servers []struct{ URL string }
			Paths   map[string]struct {
				Servers []struct{ URL string }
			}
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("OpenAPI(%q): %v", c.base, err)
		}
		if len(doc.Servers) == 0 || doc.Servers[0].URL != c.want {
			t.Errorf("OpenAPI(%q) servers = %+v, want %s", c.base, doc.Servers, c.want)
		}
		// The paths outside the API are at the site's root.
		metrics := doc.Paths[snapshot.PathMetrics].Servers
		if site := cmp.Or(strings.TrimSuffix(c.want, "/api/v1"), "/"); len(metrics) == 0 || metrics[0].URL != site {
			t.Errorf("OpenAPI(%q) %s servers = %+v, want %s", c.base, snapshot.PathMetrics, metrics, site)
		}
	}
	for _, base := range []string{"aistatus.example", "ftp://aistatus.example", "https://", "https://a.example/?x=1", "https://a.example/#f", "https://u:p@a.example"} {
		if _, err := OpenAPI(base, openapiTestServices); err == nil {
			t.Errorf("OpenAPI(%q) did not fail", base)
		}
	}
}

// TestOpenAPIKeepsText checks that the text of the description comes out
// as written: json.Marshal would write <, > and & as \u003c, \u003e, \u0026.
func TestOpenAPIKeepsText(t *testing.T) {
	t.Parallel()
	shape, err := openapiShapeOf([]byte(`{"openapi": "3.0.3", "info": {"description": "<a> & <b>"}, "servers": [{"url": "x", "description": "R&D <1>"}],
		"paths": {"/x": {"servers": [{"url": "/", "description": "A&B <2>"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out := openapiFill(shape, openapiTestBase+openapiAPIPath, openapiTestBase, openapiTestServices)
	for _, text := range []string{`"<a> & <b>"`, `"R&D <1>"`, `"A&B <2>"`} {
		if !bytes.Contains(out, []byte(text)) {
			t.Errorf("%s was not kept as written:\n%s", text, out)
		}
	}
}

func TestOpenAPIOutputIsStable(t *testing.T) {
	t.Parallel()
	a, err := OpenAPI(openapiTestBase, openapiTestServices)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := OpenAPI(openapiTestBase, openapiTestServices)
	if !bytes.Equal(a, b) {
		t.Error("two renderings differ")
	}
	if !bytes.HasSuffix(a, []byte("}\n")) || bytes.HasSuffix(a, []byte("\n\n")) {
		t.Error("output does not end in a single newline")
	}
	if !bytes.HasPrefix(a, []byte("{\n  \"openapi\": \"3.0.3\",\n  \"info\": {")) {
		t.Errorf("key order or indentation not kept: %.60q", a)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, a, "", "  "); err != nil || !bytes.Equal(bytes.TrimSpace(indented.Bytes()), bytes.TrimSpace(a)) {
		t.Error("output is not indented with two spaces")
	}
	// Only servers[0].url and the number of services differ from the
	// hand-kept file.
	var got, want any
	if err := json.Unmarshal(a, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.ReplaceAll(openapiDocument, []byte(openapiServices), []byte(strconv.Itoa(openapiTestServices))), &want); err != nil {
		t.Fatal(err)
	}
	want.(map[string]any)["servers"].([]any)[0].(map[string]any)["url"] = openapiTestBase + "/api/v1"
	for _, item := range want.(map[string]any)["paths"].(map[string]any) {
		if servers, ok := item.(map[string]any)["servers"].([]any); ok {
			servers[0].(map[string]any)["url"] = openapiTestBase
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("OpenAPI changed more than the servers' url and the number of services")
	}
	if bytes.Contains(a, []byte(openapiServices)) {
		t.Errorf("%s left in the description", openapiServices)
	}
	// The served description is itself valid for the openapi operation.
	doc := openapiLoad(t)
	if err := doc.Components.Schemas["OpenAPIDocument"].Value.VisitJSON(got); err != nil {
		t.Errorf("the description does not match OpenAPIDocument: %v", err)
	}
}

// openapiStackProperties are the optional properties a schema has for
// another Go type that embeds its own: CheckResult's checks come from
// api.StackCheckDoc (a stack's answer), checked in
// TestOpenAPIStackCheck.
var openapiStackProperties = map[string][]string{"CheckResult": {"checks"}}

// TestOpenAPIStackCheck: a stack's answer is CheckDoc's fields, all in
// CheckResult, and checks, an optional array of CheckResults.
func TestOpenAPIStackCheck(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	schema := doc.Components.Schemas["CheckResult"].Value
	typ := reflect.TypeFor[api.StackCheckDoc]()
	if f, ok := typ.FieldByName("CheckDoc"); !ok || !f.Anonymous {
		t.Fatal("StackCheckDoc does not embed CheckDoc")
	}
	f, _ := typ.FieldByName("Checks")
	checks := schema.Properties["checks"]
	if f.Tag.Get("json") != "checks" || checks == nil || !checks.Value.Type.Is("array") ||
		checks.Value.Items.Ref != "#/components/schemas/CheckResult" || slices.Contains(schema.Required, "checks") {
		t.Errorf("CheckResult.checks: %+v; want an optional array of CheckResult for StackCheckDoc.Checks", checks)
	}
	if checks.Value.MaxItems == nil || *checks.Value.MaxItems != check.MaxStack {
		t.Errorf("checks.maxItems %v, want check.MaxStack %d", checks.Value.MaxItems, check.MaxStack)
	}
}

// openapiGoSchemas maps each Go type the API serves to its component schema.
var openapiGoSchemas = map[reflect.Type]string{
	reflect.TypeFor[api.APIIndex]():               "ApiIndex",
	reflect.TypeFor[api.APIEndpoint]():            "ApiEndpoint",
	reflect.TypeFor[api.StatusDoc]():              "StatusResponse",
	reflect.TypeFor[api.Situation]():              "Situation",
	reflect.TypeFor[api.SituationSubject]():       "SituationSubject",
	reflect.TypeFor[api.SituationMeasured]():      "SituationMeasured",
	reflect.TypeFor[api.ServiceSummary]():         "ServiceSummary",
	reflect.TypeFor[api.ServiceDoc]():             "ServiceDetail",
	reflect.TypeFor[api.Uptime]():                 "Uptime",
	reflect.TypeFor[api.Incident]():               "Incident",
	reflect.TypeFor[api.IncidentList]():           "IncidentList",
	reflect.TypeFor[api.Filters]():                "Filters",
	reflect.TypeFor[api.Window]():                 "Window",
	reflect.TypeFor[api.CheckDoc]():               "CheckResult",
	reflect.TypeFor[api.CheckService]():           "CheckService",
	reflect.TypeFor[api.Verdict]():                "Verdict",
	reflect.TypeFor[api.ResumeCondition]():        "ResumeCondition",
	reflect.TypeFor[api.Evidence]():               "Evidence",
	reflect.TypeFor[api.CheckAlternative]():       "CheckAlternative",
	reflect.TypeFor[api.Sources]():                "Sources",
	reflect.TypeFor[api.FeedSource]():             "FeedSource",
	reflect.TypeFor[api.ProbeSource]():            "ProbeSource",
	reflect.TypeFor[api.UnplacedComponent]():      "UnplacedComponent",
	reflect.TypeFor[api.Problem]():                "Problem",
	reflect.TypeFor[api.Status]():                 "Status",
	reflect.TypeFor[api.Basis]():                  "Basis",
	reflect.TypeFor[api.Severity]():               "Severity",
	reflect.TypeFor[catalog.FeedFormat]():         "FeedFormat",
	reflect.TypeFor[api.Disagreement]():           "Disagreement",
	reflect.TypeFor[api.Vantages]():               "Vantages",
	reflect.TypeFor[api.VantagePoint]():           "VantagePoint",
	reflect.TypeFor[api.VantageSource]():          "VantageSource",
	reflect.TypeFor[api.VantageDropped]():         "VantageDropped",
	reflect.TypeFor[api.MeasuredModel]():          "MeasuredModel",
	reflect.TypeFor[api.ProbeLatency]():           "ProbeLatency",
	reflect.TypeFor[api.LatencyWindow]():          "LatencyWindow",
	reflect.TypeFor[api.MeasuredWindows]():        "MeasuredWindows",
	reflect.TypeFor[api.MeasuredWindow]():         "MeasuredWindow",
	reflect.TypeFor[api.Percentiles]():            "Percentiles",
	reflect.TypeFor[api.MeasuredError]():          "MeasuredError",
	reflect.TypeFor[api.CompletionOutcome]():      "CompletionOutcome",
	reflect.TypeFor[api.SourcesDoc]():             "SourcesResponse",
	reflect.TypeFor[api.ServiceSources]():         "ServiceSources",
	reflect.TypeFor[api.Component]():              "Component",
	reflect.TypeFor[catalog.SurfaceID]():          "SurfaceId",
	reflect.TypeFor[api.SurfaceSummary]():         "SurfaceSummary",
	reflect.TypeFor[api.SurfaceDoc]():             "SurfaceDetail",
	reflect.TypeFor[api.SurfaceComponent]():       "SurfaceComponent",
	reflect.TypeFor[api.CheckSurface]():           "CheckSurface",
	reflect.TypeFor[api.CheckOtherSurface]():      "CheckOtherSurface",
	reflect.TypeFor[api.Coverage]():               "Coverage",
	reflect.TypeFor[api.FailureKind]():            "FailureKind",
	reflect.TypeFor[api.ChangeType]():             "ChangeType",
	reflect.TypeFor[api.Change]():                 "Change",
	reflect.TypeFor[api.ChangeList]():             "ChangeList",
	reflect.TypeFor[api.CloudEvent]():             "CloudEvent",
	reflect.TypeFor[api.EventData]():              "EventData",
	reflect.TypeFor[api.ServiceAt]():              "ServiceAt",
	reflect.TypeFor[api.StatusAtDoc]():            "StatusAtResponse",
	reflect.TypeFor[api.ServiceAtDoc]():           "ServiceAtResponse",
	reflect.TypeFor[api.CoverageBreakdown]():      "CoverageBreakdown",
	reflect.TypeFor[api.CoverageSources]():        "CoverageSources",
	reflect.TypeFor[api.Reliability]():            "Reliability",
	reflect.TypeFor[api.DurationBySeverity]():     "DurationBySeverity",
	reflect.TypeFor[api.DurationStats]():          "DurationStats",
	reflect.TypeFor[api.Acknowledgement]():        "Acknowledgement",
	reflect.TypeFor[api.ReliabilityDoc]():         "ReliabilityResponse",
	reflect.TypeFor[api.ServiceReliability]():     "ServiceReliability",
	reflect.TypeFor[api.ExpectedResolution]():     "ExpectedResolution",
	reflect.TypeFor[api.Reports]():                "Reports",
	reflect.TypeFor[api.ModelsDoc]():              "ModelsResponse",
	reflect.TypeFor[api.ModelRules]():             "ModelRules",
	reflect.TypeFor[api.ModelDoc]():               "Model",
	reflect.TypeFor[api.ModelProvider]():          "ModelProvider",
	reflect.TypeFor[api.ModelUptimes]():           "ModelUptimes",
	reflect.TypeFor[api.ModelPercentiles]():       "ModelPercentiles",
	reflect.TypeFor[api.ModelAgreement]():         "ModelAgreement",
	reflect.TypeFor[api.ModelWitness]():           "ModelWitness",
	reflect.TypeFor[api.ModelSource]():            "ModelSource",
	reflect.TypeFor[api.ModelSourceHealth]():      "ModelSourceHealth",
	reflect.TypeFor[api.CheckModel]():             "CheckModel",
	reflect.TypeFor[api.RetirementsDoc]():         "RetirementsResponse",
	reflect.TypeFor[api.ModelRetirement]():        "ModelRetirement",
	reflect.TypeFor[api.ChangeModel]():            "ChangeModel",
	reflect.TypeFor[api.ModelStatusFrom]():        "ModelStatusFrom",
	reflect.TypeFor[api.FallbackPlan]():           "FallbackPlan",
	reflect.TypeFor[api.FallbackModel]():          "FallbackModel",
	reflect.TypeFor[api.FallbackService]():        "FallbackService",
	reflect.TypeFor[api.FallbackTarget]():         "FallbackTarget",
	reflect.TypeFor[api.FallbackEvidence]():       "FallbackEvidence",
	reflect.TypeFor[api.LiteLLMConfig]():          "LiteLLMConfig",
	reflect.TypeFor[api.LiteLLMModel]():           "LiteLLMModel",
	reflect.TypeFor[api.LiteLLMParams]():          "LiteLLMParams",
	reflect.TypeFor[api.LiteLLMRouterSettings]():  "LiteLLMRouterSettings",
	reflect.TypeFor[api.OpenRouterFallback]():     "OpenRouterFallback",
	reflect.TypeFor[api.OpenRouterProvider]():     "OpenRouterProvider",
	reflect.TypeFor[api.VercelFallback]():         "VercelFallback",
	reflect.TypeFor[api.VercelProviderOptions]():  "VercelProviderOptions",
	reflect.TypeFor[api.VercelGatewayOptions]():   "VercelGatewayOptions",
	reflect.TypeFor[api.PortkeyFallback]():        "PortkeyFallback",
	reflect.TypeFor[api.PortkeyStrategy]():        "PortkeyStrategy",
	reflect.TypeFor[api.PortkeyTarget]():          "PortkeyTarget",
	reflect.TypeFor[api.PortkeyParams]():          "PortkeyParams",
	reflect.TypeFor[api.FallbackTimeouts]():       "FallbackTimeouts",
	reflect.TypeFor[api.VercelProviderTimeouts](): "VercelProviderTimeouts",
	reflect.TypeFor[api.PortkeyBreaker]():         "PortkeyBreaker",
	reflect.TypeFor[api.RetirementSource]():       "RetirementSource",
}

// openapiNullableSchemas maps a field that can be null to the nullable
// component describing it, where the type's own component is not nullable.
// OpenAPI 3.0 cannot make a $ref nullable: `nullable` beside an `allOf` without
// a `type` is ignored by the specification and flagged by validators and
// linters (Prism, Redocly), so a nullable field gets a nullable component.
var openapiNullableSchemas = map[string]string{
	"CheckResult.status": "CheckStatus",
	"CheckResult.basis":  "CheckBasis",
}

// TestOpenAPISchemasMatchGoTypes checks every component schema against its Go
// type field by field: the same JSON names, required exactly when the field
// is always emitted, nullable exactly when it can be null, the same JSON type,
// and a $ref to the right component for nested types.
func TestOpenAPISchemasMatchGoTypes(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	for _, name := range []string{"StatusResponse", "ServiceSummary", "ServiceDetail", "Uptime", "Incident",
		"IncidentList", "Filters", "Window", "CheckResult", "CheckService", "CheckStatus", "CheckBasis", "Verdict", "ResumeCondition", "Evidence", "CheckAlternative", "Sources", "FeedSource",
		"UnplacedComponent", "ProbeSource", "Problem", "Status", "Basis", "Severity", "Category", "Disagreement", "Component", "Coverage", "FailureKind",
		"SourcesResponse", "ServiceSources", "ChangeType", "Change", "ChangeList", "CloudEvent", "EventData", "ServiceAt",
		"StatusAtResponse", "ServiceAtResponse", "CoverageBreakdown", "CoverageSources", "Reliability", "DurationBySeverity",
		"DurationStats", "Acknowledgement", "ReliabilityResponse", "ServiceReliability", "ExpectedResolution",
		"ModelsResponse", "ModelRules", "Model", "ModelProvider", "ModelUptimes", "ModelPercentiles", "ModelAgreement", "ModelWitness", "ModelSource", "ModelSourceHealth", "CheckModel", "ModelStatusFrom", "RetirementsResponse", "ModelRetirement", "RetirementSource", "ChangeModel",
		"SurfaceId", "SurfaceSummary", "SurfaceDetail", "SurfaceComponent", "CheckSurface", "CheckOtherSurface"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("component schema %s missing", name)
		}
	}
	for typ, name := range openapiGoSchemas {
		if typ.Kind() != reflect.Struct {
			continue
		}
		ref := doc.Components.Schemas[name]
		if ref == nil {
			continue
		}
		openapiCheckStruct(t, name, typ, ref.Value)
	}
}

func openapiCheckStruct(t *testing.T, where string, typ reflect.Type, schema *openapi3.Schema) {
	t.Helper()
	if !schema.Type.Is("object") {
		t.Errorf("%s: type %v, want object", where, schema.Type)
	}
	if ap := schema.AdditionalProperties; ap.Has != nil && !*ap.Has {
		t.Errorf("%s: additionalProperties is closed; clients must ignore unknown fields instead", where)
	}
	var names, required []string
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		omitempty := slices.Contains(strings.Split(opts, ","), "omitempty")
		names = append(names, name)
		if !omitempty {
			required = append(required, name)
		}
		at := where + "." + name
		prop := schema.Properties[name]
		if prop == nil {
			t.Errorf("%s: not in the schema", at)
			continue
		}
		ft := f.Type
		pointer := ft.Kind() == reflect.Pointer
		if pointer {
			ft = ft.Elem()
		}
		// A pointer that is not omitempty is null when nil; an omitempty one
		// is left out instead, and never null.
		if wantNull := pointer && !omitempty; prop.Value.Nullable != wantNull {
			t.Errorf("%s: nullable %v, want %v", at, prop.Value.Nullable, wantNull)
		}
		openapiCheckValue(t, at, ft, prop)
	}
	names = append(names, openapiStackProperties[where]...)
	sort.Strings(names)
	sort.Strings(required)
	props := slices.Sorted(maps.Keys(schema.Properties))
	if !slices.Equal(props, names) {
		t.Errorf("%s: properties %v, Go fields %v", where, props, names)
	}
	req := slices.Sorted(slices.Values(schema.Required))
	if !slices.Equal(req, required) {
		t.Errorf("%s: required %v, always-emitted Go fields %v", where, req, required)
	}
}

// openapiCheckValue checks that the schema ref describes values of Go type ft.
func openapiCheckValue(t *testing.T, at string, ft reflect.Type, ref *openapi3.SchemaRef) {
	t.Helper()
	s := ref.Value
	target := ref.Ref
	name, ok := openapiGoSchemas[ft]
	if nullable, over := openapiNullableSchemas[at]; over {
		name, ok = nullable, true
	}
	if ok {
		if want := "#/components/schemas/" + name; target != want {
			t.Errorf("%s: $ref %q, want %q", at, target, want)
		}
	}
	var want string
	switch {
	case ft == reflect.TypeFor[time.Time]():
		if s.Format != "date-time" {
			t.Errorf("%s: format %q, want date-time", at, s.Format)
		}
		want = "string"
	case ft.Kind() == reflect.String:
		want = "string"
	case ft.Kind() == reflect.Bool:
		want = "boolean"
	case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Uint64:
		want = "integer"
	case ft.Kind() == reflect.Float32 || ft.Kind() == reflect.Float64:
		want = "number"
	case ft.Kind() == reflect.Slice:
		want = "array"
		if s.Items == nil {
			t.Errorf("%s: array without items", at)
		} else {
			openapiCheckValue(t, at+"[]", ft.Elem(), s.Items)
		}
	case ft.Kind() == reflect.Map && ft.Key().Kind() == reflect.String:
		// A map is an object whose every member is the map's value.
		want = "object"
		if ap := s.AdditionalProperties.Schema; ap == nil {
			t.Errorf("%s: map without additionalProperties", at)
		} else {
			openapiCheckValue(t, at+"{}", ft.Elem(), ap)
		}
	case ft.Kind() == reflect.Struct:
		want = "object"
		if _, ok := openapiGoSchemas[ft]; !ok {
			t.Errorf("%s: Go type %s has no component schema", at, ft)
		}
	default:
		t.Errorf("%s: unexpected Go type %s", at, ft)
		return
	}
	if !s.Type.Is(want) {
		t.Errorf("%s: type %v, want %s (Go %s)", at, s.Type, want, ft)
	}
}

// sampleModel is a model degraded at one provider and fine at another.
var sampleModel = func() api.ModelDoc {
	up60, up999, region := 60.0, 99.9, "us-east5"
	gw := api.ModelSource{ID: "openrouter", Kind: api.ModelSourceGateway, Name: "OpenRouter", Window: "5m",
		Basis: "OpenRouter's uptime of its own requests", Attribution: "OpenRouter (openrouter.ai)", URL: "https://openrouter.ai/anthropic/claude-sonnet-4.5"}
	vercel := api.ModelSource{ID: "vercel", Kind: api.ModelSourceGateway, Name: "Vercel AI Gateway", Window: "15m",
		Basis: "Vercel's uptime of its own requests", Attribution: "Vercel AI Gateway (vercel.com/ai-gateway)"}
	ttft := &api.ModelPercentiles{P50: 812, P95: 2140, Window: "1h"}
	return api.ModelDoc{
		Agreement: []api.ModelAgreement{{Service: "anthropic", Status: api.Operational, Verdict: api.AgreementGatewayTrouble, Dissent: []string{"openrouter"},
			Statement: "OpenRouter's own requests fail (partial_outage) while Vercel AI Gateway sees the model operational: OpenRouter's routing, not the provider's.",
			Witnesses: []api.ModelWitness{
				{Source: "openrouter", Kind: api.ModelSourceGateway, Name: "OpenRouter", Status: api.PartialOutage, Uptime: &up60, Window: "5m", Attribution: gw.Attribution, Counted: true},
				{Source: "vercel", Kind: api.ModelSourceGateway, Name: "Vercel AI Gateway", Status: api.Operational, Uptime: &up999, Window: "15m", Latency: ttft,
					Attribution: vercel.Attribution, Counted: true},
				{Source: "anthropic", Kind: api.ModelSourceProbe, Name: "aistatus's keyless probe of Anthropic's API host", Status: api.Operational, Window: "current"},
			}}}, ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5", Author: "anthropic", Status: api.Operational,
		StatusFrom: &api.ModelStatusFrom{Service: "google-gemini", Provider: "Google", Source: gw},
		Summary:    "partial_outage at Anthropic: 60.0 % over 5m per OpenRouter; operational at Amazon Bedrock: 99.9 % over 5m per OpenRouter.",
		Providers: []api.ModelProvider{
			{Service: "anthropic", Provider: "Anthropic", Status: api.PartialOutage, Uptime: &up60, Uptimes: &api.ModelUptimes{Last30m: &up999}, Source: gw},
			{Service: "google-gemini", Provider: "Google", Region: &region, Status: api.Operational, Uptime: &up999, Uptimes: &api.ModelUptimes{}, Source: gw},
			{Service: "anthropic", Provider: "anthropic", Status: api.Operational, Uptime: &up999, Uptimes: &api.ModelUptimes{Last1h: &up999},
				Latency: ttft, Throughput: &api.ModelPercentiles{P50: 61, P95: 105, Window: "1h"}, InferenceRegions: []string{"us", "us/us-east-1"}, Source: vercel},
			{Service: "cohere", Provider: "Cohere", Status: api.Unknown, Source: api.ModelSource{ID: "cohere", Kind: api.ModelSourceComponent,
				Name: "Cohere's status page", Window: "current", Basis: "the page's component", Attribution: "Cohere's official status page",
				URL: "https://status.cohere.com", Component: "command-a-03-2025", Error: "the status page could not be read this cycle"}},
		}}
}()

// TestOpenAPISchemasAcceptGoValues marshals sample values of every document
// the API serves and validates each against its component schema.
func TestOpenAPISchemasAcceptGoValues(t *testing.T) {
	t.Parallel()
	doc := openapiLoad(t)
	now := time.Date(2025, 1, 31, 12, 0, 0, 123456789, time.UTC)
	earlier := now.Add(-3 * time.Hour)
	local := now.In(time.FixedZone("CET", 3600))
	lat, up, age, poll, threshold := 123.4, 99.862, 42, 120, 95.0
	sev, since, svc := "major", "2025-01-01", "openai"
	degraded, official := api.Degraded, api.BasisOfficial
	observed := "529"

	openIncident := api.Incident{
		ID: "openai-abc123", Service: "openai", Headline: "Elevated error rates", Severity: api.Major,
		StartedAt: earlier, EndedAt: nil, Status: "investigating", Source: api.SourceOfficial,
		URL: "https://status.openai.com/incidents/abc123", UpdatedAt: now,
	}
	endedIncident := api.Incident{
		ID: "probe-openai-1", Service: "openai", Headline: "API not answering", Severity: api.Critical,
		StartedAt: earlier.Add(-time.Hour), EndedAt: &earlier, Status: "resolved", Source: api.SourceProbe,
		UpdatedAt: earlier,
	}

	// Measured figures as a history computes them: successes, a 529 and
	// our refused key.
	measuredHist := &history.ServiceHistory{}
	for i, o := range []api.CompletionOutcome{api.OutcomeOK, api.OutcomeOverloaded, api.OutcomeOK, api.OutcomeKeyRefused} {
		s := api.CompletionSample{At: now.Add(time.Duration(i-4) * time.Minute), Outcome: o, HTTPStatus: 529, Code: "overloaded_error"}
		if o == api.OutcomeOK {
			ttft, total := 310.5, 402.25
			s = api.CompletionSample{At: s.At, Outcome: o, HTTPStatus: 200, TTFTMs: &ttft, TotalMs: &total}
		}
		measuredHist.RecordCompletion("openai/gpt-4o-mini", s)
	}
	measured := measuredHist.Measured(&catalog.CompletionProbe{Models: []catalog.MeasuredModelRef{
		{ID: "openai/gpt-4o-mini", Model: "gpt-4o-mini"}, {ID: "openai/gpt-4.1-nano", Model: "gpt-4.1-nano"}}}, now)
	if len(measured) != 1 {
		t.Fatalf("measured %+v", measured)
	}
	// A history with enough ended incidents and probe-seen outages for
	// every percentile, and none for the empty reliability.
	var ended []api.Incident
	var detections []history.Detection
	for i := range 6 {
		start := earlier.Add(-time.Duration(i+2) * 24 * time.Hour)
		end := start.Add(time.Duration(10*(i+1)) * time.Minute)
		ended = append(ended, api.Incident{ID: fmt.Sprintf("openai-old%d", i), Service: "openai", Severity: api.Major,
			StartedAt: start, EndedAt: &end, Source: api.SourceOfficial})
		detections = append(detections, history.Detection{Start: start, AckAt: &end, End: end, GreenSeconds: 300})
	}
	reliability := history.ComputeReliability("openai", ended, detections)
	noReliability := history.ComputeReliability("x-ai", nil, nil)

	samples := []struct {
		name, schema string
		value        any
	}{
		{"status", "StatusResponse", api.StatusDoc{
			Status: "ok", Timestamp: now, Source: "aistatus (https://aistatus.example)", License: api.License,
			Services: []api.ServiceSummary{
				{Slug: "openai", Name: "OpenAI", Category: "llm-api", Domain: "openai.com", Status: api.Operational, Basis: api.BasisOfficial,
					LastChecked: &now, URL: "https://openai.com", StatusPage: "https://status.openai.com", LatencyMs: &lat, Feed: api.FeedOK,
					Surfaces: []api.SurfaceSummary{
						{ID: catalog.SurfaceAPI, Name: "OpenAI API", Status: api.Operational, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{}},
						{ID: catalog.SurfaceApp, Name: "ChatGPT", Status: api.MajorOutage, Basis: api.BasisOfficial, OpenIncidents: []api.Incident{openIncident}},
					}},
				{Slug: "hugging-face", Name: "Hugging Face", Category: "inference", Domain: "huggingface.co", Status: api.Unknown, Basis: api.BasisProbe,
					LastChecked: nil, URL: "https://huggingface.co", StatusPage: "https://status.huggingface.co", LatencyMs: nil, Feed: api.FeedError,
					Disagreement: &api.Disagreement{Since: earlier, By: api.EvidenceProbe, Official: api.Operational, Measured: api.MajorOutage, Detail: "Our probes failed."},
					Surfaces:     []api.SurfaceSummary{{ID: catalog.SurfaceAPI, Name: "Hugging Face API", Status: api.Unknown, Basis: api.BasisProbe, OpenIncidents: []api.Incident{}}}},
			},
		}},
		{"status with no services", "StatusResponse", api.StatusDoc{
			Status: "ok", Timestamp: local, Services: []api.ServiceSummary{}, Source: "aistatus", License: api.License,
		}},
		{"service", "ServiceDetail", api.ServiceDoc{
			Slug: "openai", Name: "OpenAI", Category: "llm-api", Domain: "openai.com", URL: "https://openai.com",
			StatusPage: "https://status.openai.com", Status: api.PartialOutage, Basis: api.BasisProbe, LastChecked: &now, LatencyMs: &lat,
			Uptime:         api.Uptime{H24: &up, D7: &up, D30: nil},
			UptimeCoverage: api.Coverage{H24: 1, D7: 0.5, D30: 0.116},
			UptimeCoverageSources: api.CoverageBreakdown{H24: api.CoverageSources{Checks: 0.612, Timeline: 0.387},
				D7: api.CoverageSources{Checks: 0.5}, D30: api.CoverageSources{Checks: 0.1, Timeline: 0.016}},
			Reliability: reliability,
			DataSince:   &earlier,
			Incidents:   []api.Incident{openIncident, endedIncident},
			Components: []api.Component{
				{ID: "01JMXBRMFE6N2NNT7DG6XZQ6PW", Name: "Chat Completions", Group: "APIs", Status: api.PartialOutage, InScope: true},
				{ID: "01JMXBNJXGV1T5GT2M9XA83XNG", Name: "Conversations", Status: api.Operational},
			},
			Surfaces: []api.SurfaceDoc{
				{ID: catalog.SurfaceAPI, Name: "OpenAI API", Status: api.PartialOutage, Basis: api.BasisProbe, Source: "The service's status.",
					Components: []api.SurfaceComponent{{ID: "01JMXBRMFE6N2NNT7DG6XZQ6PW", Name: "Chat Completions", Group: "APIs", Status: api.PartialOutage}},
					Incidents:  []api.Incident{openIncident, endedIncident}, Uptime: api.Uptime{H24: &up, D7: &up, D30: nil},
					UptimeCoverage: api.Coverage{H24: 1, D7: 0.5, D30: 0.116}, DataSince: &earlier, CheckedAt: &now},
				{ID: catalog.SurfaceApp, Name: "ChatGPT", Status: api.Operational, Basis: api.BasisOfficial, Source: "The official page.",
					Components: []api.SurfaceComponent{{ID: "01JMXBNJXGV1T5GT2M9XA83XNG", Name: "Conversations", Status: api.Operational}},
					Incidents:  []api.Incident{}, CheckedAt: &now},
				{ID: catalog.SurfaceAgent, Name: "Codex", Status: api.Unknown, Basis: api.BasisNone, Source: "Nothing to go on.",
					Components: []api.SurfaceComponent{}, Incidents: []api.Incident{}},
			},
			Sources: api.Sources{
				Feed: api.FeedSource{Format: catalog.FormatStatuspage, URL: "https://status.openai.com/api/v2/summary.json",
					State: api.FeedOK, Status: api.Operational, LastOKAt: &now, RosterChangedAt: &earlier,
					RosterAdded: []string{"Agents (01M3Q6W0264T1RJS1YEM47CAQJ)"},
					Unplaced:    []api.UnplacedComponent{{ID: "01KWORKSPACEAGENT000000000", Name: "Workspace Agent", FirstSeen: earlier}}},
				Probe: api.ProbeSource{State: api.ProbeFailed, Error: "timeout", Attempts: 3},
				Disagreement: &api.Disagreement{Since: earlier, By: api.EvidenceProbe, Official: api.Operational, Measured: api.MajorOutage,
					Detail: "Our probes have failed 3 times in a row."},
			},
			Measured:     measured,
			ProbeLatency: api.ProbeLatency{H24: api.LatencyWindow{Samples: 3, P50: &lat, P95: &lat}},
			Timestamp:    now, License: api.License,
		}},
		{"service never checked", "ServiceDetail", api.ServiceDoc{
			Slug: "x-ai", Name: "xAI", Category: "llm-api", Domain: "x.ai", URL: "https://x.ai",
			StatusPage: "https://status.x.ai", Status: api.Unknown, Basis: api.BasisNone,
			Incidents:  []api.Incident{},
			Components: []api.Component{},
			Surfaces: []api.SurfaceDoc{{ID: catalog.SurfaceAPI, Name: "xAI API", Status: api.Unknown, Basis: api.BasisNone,
				Source: "Nothing.", Components: []api.SurfaceComponent{}, Incidents: []api.Incident{}}},
			Sources: api.Sources{
				Feed: api.FeedSource{Format: catalog.FormatRSS, State: api.FeedError, Error: "status 503",
					Failure: api.FailureHTTP, ConsecutiveFailures: 4, FailingSince: &earlier},
				Probe: api.ProbeSource{State: api.ProbeFailed, Error: "timeout"},
			},
			Measured:  []api.MeasuredModel{},
			Timestamp: now, License: api.License,
			Reliability: noReliability,
		}},
		{"incidents from the server", "IncidentList", api.IncidentList{
			Incidents: []api.Incident{openIncident, endedIncident}, Timestamp: now,
			Filters: api.Filters{Since: &since, Severity: &sev, Service: &svc},
			Window:  &api.Window{Since: now.AddDate(0, 0, -30), Limit: 100, Truncated: true},
			License: api.License,
		}},
		{"incidents.json", "IncidentList", api.IncidentList{
			Incidents: []api.Incident{}, Timestamp: now, License: api.License,
		}},
		{"check tracked", "CheckResult", api.CheckDoc{
			Query: "api.openai.com", Tracked: true,
			Service:       &api.CheckService{Slug: "openai", Name: "OpenAI", Domain: "openai.com"},
			Surface:       &api.CheckSurface{ID: catalog.SurfaceAPI, Name: "OpenAI API"},
			OtherSurfaces: []api.CheckOtherSurface{{ID: catalog.SurfaceApp, Name: "ChatGPT", Status: api.MajorOutage, Basis: api.BasisOfficial}},
			Status:        &degraded, Basis: &official, LatencyMs: &lat, LatencyCheckedAt: &now,
			Error: &observed,
			Verdict: api.Verdict{Headline: "OpenAI is slow.", Emoji: "⚠️", Level: "degraded", Stale: false, DataAgeSeconds: &age,
				Action: api.ActionFailover, Blame: api.BlameProvider, Confidence: api.ConfidenceHigh, Reason: "A server error.",
				ExpectedResolution: &api.ExpectedResolution{Incident: openIncident.ID, Severity: openIncident.Severity,
					StartedAt: openIncident.StartedAt, P50Minutes: 30, P90Minutes: 60, Basis: 6},
				PollAfterSeconds: &poll,
				ResumeWhen: []api.ResumeCondition{
					{Condition: api.ResumeRecovered, Event: api.ChangeServiceRecovered, Subject: "openai", When: "OpenAI API is back to operational"},
					{Condition: api.ResumeIncidentResolved, Event: api.ChangeIncidentResolved, Subject: "openai", Incident: openIncident.ID,
						When: "the status page resolves its incident"},
					{Condition: api.ResumeModelUptime, Threshold: &threshold, When: "its uptime reaches 95 %"},
				},
				Evidence:     []api.Evidence{{Source: api.EvidenceOfficial, Says: "The status page says degraded.", AgeSeconds: 42}},
				Alternatives: []api.CheckAlternative{{Slug: "azure-openai", Name: "Azure OpenAI", Status: api.Operational, Why: "serves GPT"}}},
			Timestamp: now, License: api.License,
		}},
		{"check untracked", "CheckResult", api.CheckDoc{
			Query: "example.com", Tracked: false, OtherSurfaces: []api.CheckOtherSurface{},
			Verdict: api.Verdict{Headline: "example.com is not tracked.", Emoji: "❔", Level: "untracked",
				Suggestions: []string{"OpenAI", "Anthropic"}, Evidence: []api.Evidence{}, Alternatives: []api.CheckAlternative{}},
			Timestamp: now, License: api.License,
		}},
		{"problem", "Problem", api.Problem{Type: "about:blank", Title: "Bad Request", Status: 400,
			Detail: "limit must be an integer from 1 to 1000", Param: "limit"}},
		{"changes", "ChangeList", api.ChangeList{
			Changes: []api.Change{
				{ID: 1, Type: api.ChangeStatus, Service: "openai", Time: now, NewStatus: api.Operational},
				{ID: 2, Type: api.ChangeStatus, Service: "openai", Time: now, OldStatus: api.Operational, NewStatus: api.MajorOutage},
				{ID: 3, Type: api.ChangeIncidentUpdated, Service: "openai", Time: now, Incident: &openIncident, Changed: []string{"severity"}},
				{ID: 4, Type: api.ChangeSurfaceStatus, Service: "anthropic", Surface: catalog.SurfaceApp, Time: now,
					OldStatus: api.Operational, NewStatus: api.MajorOutage},
				{ID: 5, Type: api.ChangeModelStatus, Service: "anthropic", Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}, Time: now,
					OldStatus: api.Operational, NewStatus: api.Degraded},
				{ID: 6, Type: api.ChangeModelStatus, Model: &api.ChangeModel{ID: "meta-llama/llama-4-scout", Name: "Llama 4 Scout"}, Time: now,
					OldStatus: api.Unknown, NewStatus: api.Operational},
			},
			LogStart: earlier, LastID: 6, Truncated: true, Timestamp: now, License: api.License,
		}},
		{"empty changes", "ChangeList", api.ChangeList{Changes: []api.Change{}, Timestamp: now, License: api.License}},
		{"cloud event", "CloudEvent", snapshot.NewCloudEvent(api.Change{ID: 7, Type: api.ChangeIncidentResolved, Service: "openai",
			Time: now, Incident: &endedIncident}, "https://aistatus.example/")},
		{"surface cloud event", "CloudEvent", snapshot.NewCloudEvent(api.Change{ID: 8, Type: api.ChangeSurfaceStatus, Service: "anthropic",
			Surface: catalog.SurfaceApp, Time: now, OldStatus: api.Operational, NewStatus: api.MajorOutage}, "https://aistatus.example/")},
		{"open-weight model cloud event", "CloudEvent", snapshot.NewCloudEvent(api.Change{ID: 9, Type: api.ChangeModelStatus,
			Model: &api.ChangeModel{ID: "meta-llama/llama-4-scout", Name: "Llama 4 Scout"}, Time: now, OldStatus: api.Operational, NewStatus: api.MajorOutage}, "https://aistatus.example/")},
		{"recovery cloud event", "CloudEvent", snapshot.NewCloudEvent(api.Change{ID: 10, Type: api.ChangeServiceRecovered, Service: "openai",
			Time: now, OldStatus: api.MajorOutage, NewStatus: api.Operational}, "https://aistatus.example/")},
		{"model recovery cloud event", "CloudEvent", snapshot.NewCloudEvent(api.Change{ID: 11, Type: api.ChangeModelRecovered, Service: "anthropic",
			Model: &api.ChangeModel{ID: "anthropic/claude-sonnet-4.5", Name: "Claude Sonnet 4.5"}, Time: now, OldStatus: api.PartialOutage, NewStatus: api.Operational}, "https://aistatus.example/")},
		{"status at", "StatusAtResponse", api.StatusAtDoc{At: earlier, LogStart: earlier, Timestamp: now, License: api.License,
			Services: []api.ServiceAt{{Slug: "openai", Name: "OpenAI", Status: api.MajorOutage, Since: &earlier, Incidents: []api.Incident{openIncident}},
				{Slug: "groq", Name: "Groq", Status: api.Operational, Incidents: []api.Incident{}}}}},
		{"service at", "ServiceAtResponse", api.ServiceAtDoc{At: earlier, LogStart: earlier, Timestamp: now, License: api.License,
			Service: api.ServiceAt{Slug: "openai", Name: "OpenAI", Status: api.Unknown, Incidents: []api.Incident{}}}},
		{"problem without param", "Problem", api.Problem{Type: "about:blank", Title: "Too Many Requests", Status: 429,
			Detail: "30 requests per minute"}},
		{"reliability", "ReliabilityResponse", api.ReliabilityDoc{Timestamp: now, License: api.License,
			Services: []api.ServiceReliability{{Slug: "openai", Name: "OpenAI", Reliability: reliability},
				{Slug: "x-ai", Name: "xAI", Reliability: noReliability}}}},
		{"models", "ModelsResponse", api.ModelsDoc{Timestamp: now, License: api.License, Rules: history.CurrentModelRules(),
			Models: []api.ModelDoc{sampleModel, {ID: "cohere/command-a", Name: "Command A", Author: "cohere", Status: api.Unknown,
				Summary: "No source reports on this model: its status is unknown.", Providers: []api.ModelProvider{}}},
			Sources: []api.ModelSourceHealth{{ID: "openrouter", Kind: "gateway", Name: "OpenRouter", Enabled: true,
				URL: "https://openrouter.ai/api/v1/models/{model}/endpoints", Attribution: "OpenRouter", State: api.FeedError,
				Reads: 40, Failed: 1, Error: "HTTP 429", Failure: api.FailureHTTP, LastOKAt: &earlier, ConsecutiveFailures: 2, FailingSince: &now}}}},
		{"model", "Model", func() api.ModelDoc {
			m := sampleModel
			m.Incidents, m.Timestamp, m.License = []api.Incident{openIncident}, &now, api.License
			return m
		}()},
	}
	for _, s := range samples {
		t.Run(s.name, func(t *testing.T) {
			v := openapiJSONValue(t, s.value)
			schema := doc.Components.Schemas[s.schema].Value
			if err := schema.VisitJSON(v, openapi3.MultiErrors()); err != nil {
				t.Errorf("%s does not match %s: %v\n%s", s.name, s.schema, err, openapiMust(json.Marshal(s.value)))
			}
		})
	}

	// The schemas are not vacuous: broken documents are refused.
	for _, c := range []struct {
		name, schema string
		value        any
		edit         func(map[string]any)
	}{
		{"no services", "StatusResponse", samples[0].value, func(m map[string]any) { delete(m, "services") }},
		{"bad status", "StatusResponse", samples[0].value, func(m map[string]any) {
			m["services"].([]any)[0].(map[string]any)["status"] = "down"
		}},
		{"bad category", "ServiceDetail", samples[2].value, func(m map[string]any) { m["category"] = "chat" }},
		{"model uptime above 100", "Model", samples[len(samples)-1].value, func(m map[string]any) {
			m["providers"].([]any)[0].(map[string]any)["uptime"] = 100.5
		}},
		{"model source of no kind", "Model", samples[len(samples)-1].value, func(m map[string]any) {
			m["providers"].([]any)[0].(map[string]any)["source"].(map[string]any)["kind"] = "rumour"
		}},
		{"model without providers", "ModelsResponse", samples[len(samples)-2].value, func(m map[string]any) {
			delete(m["models"].([]any)[0].(map[string]any), "providers")
		}},
		{"bad timestamp", "ServiceDetail", samples[2].value, func(m map[string]any) { m["timestamp"] = "yesterday" }},
		{"null uptime", "ServiceDetail", samples[2].value, func(m map[string]any) { m["uptime"] = nil }},
		{"uptime above 100", "ServiceDetail", samples[2].value, func(m map[string]any) { m["uptime"].(map[string]any)["24h"] = 100.5 }},
		{"bad severity", "IncidentList", samples[4].value, func(m map[string]any) {
			m["incidents"].([]any)[0].(map[string]any)["severity"] = "low"
		}},
		{"filters missing", "IncidentList", samples[4].value, func(m map[string]any) { delete(m["filters"].(map[string]any), "service") }},
		{"null window", "IncidentList", samples[4].value, func(m map[string]any) { m["window"] = nil }},
		{"bad status", "CheckResult", samples[6].value, func(m map[string]any) { m["status"] = "up" }},
		{"bad level", "CheckResult", samples[7].value, func(m map[string]any) { m["verdict"].(map[string]any)["level"] = "fine" }},
		{"service without slug", "CheckResult", samples[6].value, func(m map[string]any) { delete(m["service"].(map[string]any), "slug") }},
		{"null verdict", "CheckResult", samples[7].value, func(m map[string]any) { m["verdict"] = nil }},
		{"status missing", "CheckResult", samples[7].value, func(m map[string]any) { delete(m, "status") }},
		{"service a string", "CheckResult", samples[7].value, func(m map[string]any) { m["service"] = "openai" }},
		{"problem without detail", "Problem", samples[8].value, func(m map[string]any) { delete(m, "detail") }},
		{"p50 a string", "ServiceDetail", samples[2].value, func(m map[string]any) {
			m["reliability"].(map[string]any)["incidentDuration"].(map[string]any)["major"].(map[string]any)["p50Minutes"] = "30"
		}},
		{"expectedResolution without basis", "CheckResult", samples[6].value, func(m map[string]any) {
			delete(m["verdict"].(map[string]any)["expectedResolution"].(map[string]any), "basis")
		}},
	} {
		m := openapiJSONValue(t, c.value).(map[string]any)
		c.edit(m)
		if err := doc.Components.Schemas[c.schema].Value.VisitJSON(m); err == nil {
			t.Errorf("%s: %s accepted %s", c.name, c.schema, openapiMust(json.Marshal(m)))
		}
	}
}

// openapiJSONValue is v as encoding/json renders it, decoded to plain values.
func openapiJSONValue(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func openapiMust(data []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	return string(data)
}

// openapiCSVHeader is the header row of export.csv, from api.ExportRow's tags.
func openapiCSVHeader() []string {
	var cols []string
	for f := range reflect.TypeFor[api.ExportRow]().Fields() {
		cols = append(cols, f.Tag.Get("csv"))
	}
	return cols
}

func openapiAny[T any](list []T) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = reflect.ValueOf(v).Convert(reflect.TypeFor[string]()).Interface()
	}
	return out
}
